"""Writes games/web/locale/<lang>/LC_MESSAGES/{django,djangojs}.po and checks seed wording."""
import pathlib, subprocess
ROOT = pathlib.Path("/work/main/games/web/locale")
SEEDS = {"fr": "000_5a3d8b60641b875d.txt", "ja": "002_d478d0f43de15dcd.txt", "de": "003_2030f80982de042e.txt"}
PLURAL = {"fr": "nplurals=2; plural=(n > 1);", "de": "nplurals=2; plural=(n != 1);", "ja": "nplurals=1; plural=0;"}

T = {  # template strings
"Kitten fishing": ("La pêche du chaton", "Kätzchen-Angeln", "子猫の魚釣り"),
"Your games": ("Vos parties", "Deine Partien", "あなたの成績"),
"Won": ("Gagnées", "Gewonnen", "勝ち"),
"Lost": ("Perdues", "Verloren", "負け"),
"Drawn": ("Nulles", "Unentschieden", "引き分け"),
"Kitten": ("Chaton", "Kätzchen", "子猫"),
"Kitten's pile": ("Pile de Chaton", "Kätzchens Stapel", "子猫の山札"),
"Turn": ("Tour", "Zug", "手番"),
"Moves": ("Coups", "Züge", "手数"),
"Table": ("Table", "Tisch", "場"),
"Your pile: flip the top card": ("Votre pile : retourner la carte du dessus", "Dein Stapel: oberste Karte aufdecken", "あなたの山札：一番上の札をめくる"),
"You": ("Vous", "Du", "あなた"),
"Your pile": ("Votre pile", "Dein Stapel", "あなたの山札"),
"Tap your pile to flip": ("Touchez votre pile pour retourner", "Tippe auf deinen Stapel", "山札をタップしてめくろう"),
"Game controls": ("Commandes de la partie", "Spielsteuerung", "操作"),
"Flip": ("Retourner", "Aufdecken", "めくる"),
"Skip": ("Passer", "Überspringen", "スキップ"),
"Auto": ("Auto", "Auto", "自動"),
"See result": ("Voir le résultat", "Zum Ergebnis", "結果を見る"),
"New game": ("Nouvelle partie", "Neues Spiel", "新しい対局"),
"Full screen": ("Plein écran", "Vollbild", "全画面"),
"Total moves": ("Nombre total de coups", "Züge insgesamt", "総手数"),
"Replay": ("Rejouer", "Neue Runde", "もう一局"),
"Cancel": ("Annuler", "Abbrechen", "キャンセル"),
"Confirm": ("Confirmer", "Bestätigen", "確認"),
"Kitten fishing needs JavaScript.": ("La pêche du chaton nécessite JavaScript.", "Kätzchen-Angeln braucht JavaScript.", "子猫の魚釣りには JavaScript が必要です。"),
}
J = {  # JS strings
"You win!": ("Victoire !", "Sieg!", "あなたの勝ち！"),
"You lose": ("Défaite", "Niederlage", "あなたの負け"),
"Draw": ("Égalité", "Unentschieden", "引き分け"),
"Move limit: most cards wins": ("Limite de coups : le plus de cartes l’emporte", "Zuglimit erreicht – Kartenzahl entscheidet", "手数の上限に達したため枚数で判定"),
"Kitten's pile ran out": ("La pile de Chaton est épuisée", "Kätzchens Stapel ist leer", "子猫の山札がなくなりました"),
"Your pile ran out": ("Votre pile est épuisée", "Dein Stapel ist leer", "あなたの山札がなくなりました"),
"Game over": ("Partie terminée", "Spiel vorbei", "対局終了"),
"Your turn": ("À vous", "Du bist am Zug", "あなたの番"),
"Kitten's turn": ("Au tour de Chaton", "Kätzchen ist am Zug", "子猫の番"),
"Dealing…": ("Distribution…", "Karten werden verteilt…", "配札中…"),
"In this game, the opponent flips first": ("Dans cette partie, l’adversaire retourne en premier", "In diesem Spiel deckt der Gegner zuerst auf", "この対局は相手が先にめくります"),
"In this game, you flip first": ("Dans cette partie, vous retournez en premier", "In diesem Spiel deckst du zuerst auf", "この対局はあなたが先にめくります"),
"You flipped %(card)s": ("Vous retournez %(card)s", "Du deckst %(card)s auf", "あなたが %(card)s をめくりました"),
"Kitten flipped %(card)s": ("Chaton retourne %(card)s", "Kätzchen deckt %(card)s auf", "子猫が %(card)s をめくりました"),
"Could not reach the server. Try again.": ("Impossible de joindre le serveur. Réessayez.", "Server nicht erreichbar. Bitte erneut versuchen.", "サーバーに接続できません。もう一度お試しください。"),
"See the result now? The remaining cards are flipped at once.": ("Voir le résultat maintenant ? Les cartes restantes seront retournées instantanément.", "Jetzt zum Ergebnis? Die restlichen Karten werden sofort aufgedeckt.", "結果を見ますか？残りの札が一瞬でめくられます。"),
"Start a new game? This game will be abandoned.": ("Commencer une nouvelle partie ? La partie en cours sera abandonnée.", "Neues Spiel starten? Diese Partie wird abgebrochen.", "新しい対局を始めますか？この対局は中断されます。"),
"Wait for the opponent": ("Attendez l’adversaire", "Warte auf den Gegner", "相手を待っています"),
}
P = {  # plurals: (singular, plural) -> per language (one, many)
("Fished! You take %(n)s card", "Fished! You take %(n)s cards"): (("Pêché ! Vous prenez %(n)s carte", "Pêché ! Vous prenez %(n)s cartes"), ("Geangelt! Du nimmst %(n)s Karte", "Geangelt! Du nimmst %(n)s Karten"), ("釣れた！あなたが %(n)s 枚獲得",)),
("Fished! Kitten takes %(n)s card", "Fished! Kitten takes %(n)s cards"): (("Pêché ! Chaton prend %(n)s carte", "Pêché ! Chaton prend %(n)s cartes"), ("Geangelt! Kätzchen nimmt %(n)s Karte", "Geangelt! Kätzchen nimmt %(n)s Karten"), ("釣れた！子猫が %(n)s 枚獲得",)),
("Jack sweep! You take %(n)s card", "Jack sweep! You take %(n)s cards"): (("Rafle du valet ! Vous prenez %(n)s carte", "Rafle du valet ! Vous prenez %(n)s cartes"), ("Bube räumt ab! Du nimmst %(n)s Karte", "Bube räumt ab! Du nimmst %(n)s Karten"), ("J で総取り！あなたが %(n)s 枚獲得",)),
("Jack sweep! Kitten takes %(n)s card", "Jack sweep! Kitten takes %(n)s cards"): (("Rafle du valet ! Chaton prend %(n)s carte", "Rafle du valet ! Chaton prend %(n)s cartes"), ("Bube räumt ab! Kätzchen nimmt %(n)s Karte", "Bube räumt ab! Kätzchen nimmt %(n)s Karten"), ("J で総取り！子猫が %(n)s 枚獲得",)),
}
LANGS = ("fr", "de", "ja")
# The seeds' exact wording.
must = {"fr": ["Dans cette partie, l’adversaire retourne en premier", "Pêché ! Vous prenez 4 cartes", "Attendez l’adversaire",
               "Limite de coups : le plus de cartes l’emporte", "Touchez votre pile pour retourner", "Voir le résultat", "Passer", "Rejouer", "Nouvelle partie", "Retourner"],
        "de": ["In diesem Spiel deckt der Gegner zuerst auf", "Geangelt! Du nimmst 4 Karten", "Warte auf den Gegner",
               "Zuglimit erreicht – Kartenzahl entscheidet", "Tippe auf deinen Stapel", "Zum Ergebnis", "Überspringen", "Neue Runde", "Neues Spiel", "Aufdecken"],
        "ja": ["この対局は相手が先にめくります", "釣れた！あなたが 4 枚獲得", "相手を待っています", "手数の上限に達したため枚数で判定",
               "山札をタップしてめくろう", "結果を見る", "スキップ", "もう一局", "新しい対局", "めくる"]}
for lang, phrases in must.items():
    text = open(f"/work/shared/seeds/{SEEDS[lang]}").read()
    for p in phrases:
        assert p in text, (lang, p)

def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

def header(lang):
    return (f'msgid ""\nmsgstr ""\n"Project-Id-Version: casual games\\n"\n"Language: {lang}\\n"\n'
            f'"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Content-Transfer-Encoding: 8bit\\n"\n'
            f'"Plural-Forms: {PLURAL[lang]}\\n"\n\n')

for i, lang in enumerate(LANGS):
    d = ROOT / lang / "LC_MESSAGES"
    d.mkdir(parents=True, exist_ok=True)
    out = header(lang) + "".join(f"msgctxt \"kitten\"\nmsgid {q(k)}\nmsgstr {q(v[i])}\n\n" for k, v in T.items())
    (d / "django.po").write_text(out)
    out = header(lang) + "".join(f"msgid {q(k)}\nmsgstr {q(v[i])}\n\n" for k, v in J.items())
    for (one, many), forms in P.items():
        out += f"msgid {q(one)}\nmsgid_plural {q(many)}\n" + "".join(f"msgstr[{j}] {q(f)}\n" for j, f in enumerate(forms[i])) + "\n"
    (d / "djangojs.po").write_text(out)
    for dom in ("django", "djangojs"):
        subprocess.run(["msgfmt", "--check", "-o", str(d / f"{dom}.mo"), str(d / f"{dom}.po")], check=True)
print("ok")
