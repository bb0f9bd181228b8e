// A second, independent implementation of docs/rules.md §1 (the seeded shuffle) and §2 (Pêche),
// written from the rules text so that anyone can re-check a closed day in a browser
// (or Node 20) without trusting the server's Python engine. No DOM here, and nothing of
// it takes part in play: the daily game stays server-authoritative.
// Vectors: tests/js/run-peche-vectors.mjs runs tests/vectors/peche.jsonl (docs/rules.md §5) through it.

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const SUITS = ["S", "H", "D", "C"];
const RANK_SET = new Set(RANKS);
const UNSHUFFLED = Array.from({ length: 52 }, (_, i) => RANKS[Math.floor(i / 4)] + SUITS[i % 4]);
const PLAYER = 0;
const OPPONENT = 1;
const ALL_PAIRS = 26;
// 51 draws need 7 blocks of 8 words; a rejection by below(n) is rare (n ≤ 52 against 2^32),
// so hashing 7 blocks at once nearly always suffices, and they run concurrently.
const BATCH = 7;

const subtle = globalThis.crypto && globalThis.crypto.subtle;
const encoder = new TextEncoder();

async function sha256(bytes) {
  if (!subtle) throw new Error("WebCrypto (crypto.subtle) is unavailable: the page needs https or localhost");
  return new Uint8Array(await subtle.digest("SHA-256", bytes));
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

// The day's commitment, as the server publishes it: SHA-256 of the seed's UTF-8, in hex.
export async function commitmentOf(seed) {
  return hex(await sha256(encoder.encode(seed)));
}

// u32() of docs/rules.md §1 over the stream SHA-256(seed + ":" + k), k = 0, 1, …
function wordStream(seed) {
  let words = [];
  let at = 0;
  let nextBlock = 0;
  async function refill() {
    const blocks = await Promise.all(Array.from({ length: BATCH }, (_, n) =>
      sha256(encoder.encode(`${seed}:${nextBlock + n}`))));
    nextBlock += BATCH;
    words = [];
    at = 0;
    for (const block of blocks) {
      const view = new DataView(block.buffer);
      for (let w = 0; w < 8; w++) words.push(view.getUint32(w * 4, false));  // big-endian
    }
  }
  return async function u32() {
    if (at >= words.length) await refill();
    return words[at++];
  };
}

// The deck for a seed; index 0 is the top card, dealt first.
export async function shuffledDeck(seed) {
  if (typeof seed !== "string" || seed === "") throw new TypeError("a seed is a non-empty string");
  const deck = UNSHUFFLED.slice();
  const u32 = wordStream(seed);
  for (let i = 51; i >= 1; i--) {
    const n = i + 1;
    const limit = Math.floor(2 ** 32 / n) * n;  // exact: 2^32 and the product fit a double
    let x = await u32();
    while (x >= limit) x = await u32();  // below(n): reject to stay uniform
    const j = x % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

const rankOf = (card) => card.slice(0, -1);

// The table of §2. A hand is a Map rank -> card: a Map keeps insertion order, and a card
// that pairs is deleted, so the order is the acquisition order the opponent's tie-break uses.
function deal(deck) {
  const game = {
    deck, lakeNext: 10, hands: [new Map(), new Map()], pairs: [0, 0], pairsOfRank: new Map(RANKS.map((r) => [r, 0])),
    turn: PLAYER, asks: [0, 0], opponentAsked: [], over: false,
    // The opponent's knowledge of the player's hand (public information only).
    known: new Set(), absent: new Map(), draws: 0,
  };
  for (let i = 0; i < 10; i++) receive(game, i % 2, deck[i], true);
  return game;
}

function receive(game, seat, card, fromDeck) {
  const rank = rankOf(card);
  const hand = game.hands[seat];
  if (hand.has(rank)) {
    hand.delete(rank);
    game.pairs[seat] += 1;
    game.pairsOfRank.set(rank, game.pairsOfRank.get(rank) + 1);
    if (seat === PLAYER) {
      game.known.delete(rank);
      game.absent.set(rank, game.draws);
    }
    if (game.pairs[0] + game.pairs[1] === ALL_PAIRS) game.over = true;
    return;
  }
  hand.set(rank, card);
  if (seat === PLAYER && fromDeck) game.draws += 1;
}

function draw(game, seat) {
  receive(game, seat, game.deck[game.lakeNext++], true);
}

function ask(game, seat, rank) {
  const other = 1 - seat;
  game.asks[seat] += 1;
  if (seat === PLAYER) game.known.add(rank);
  const given = game.hands[other].get(rank);
  game.hands[other].delete(rank);
  if (seat === OPPONENT) {
    game.opponentAsked.push(rank);
    // Had the player one or not, afterwards it holds none.
    game.known.delete(rank);
    game.absent.set(rank, game.draws);
  }
  if (given !== undefined) {
    receive(game, seat, given, false);
    return;  // the same mover plays again
  }
  if (game.lakeNext < 52) draw(game, seat);
  game.turn = other;
}

// Π_{i<k} (U − u − i) / (U − i) as an exact fraction [N, D]: the chance that none of the u
// unseen cards of a rank is among k of U unknown cards. BigInt: the products overflow 2^53.
function missChance(total, unseen, k) {
  let n = 1n;
  let d = 1n;
  for (let i = 0; i < k; i++) {
    const top = total - unseen - i;
    if (top <= 0) return [0n, 1n];  // a factor reaches 0: the rank must be among them
    n *= BigInt(top);
    d *= BigInt(total - i);
  }
  return [n, d];
}

function opponentChoice(game) {
  const hand = game.hands[OPPONENT];
  for (const rank of hand.keys()) if (game.known.has(rank)) return rank;
  const m = game.hands[PLAYER].size - game.known.size;
  const total = 52 - game.lakeNext + m;
  let best = null;
  let bestN = 1n;
  let bestD = 1n;
  for (const rank of hand.keys()) {
    const seenAt = game.absent.get(rank);
    const k = seenAt === undefined ? m : Math.min(m, game.draws - seenAt);
    const [n, d] = missChance(total, 3 - 2 * game.pairsOfRank.get(rank), k);
    // Highest P = 1 − N/D is lowest N/D; strictly lower only, so ties keep hand order.
    if (best === null || n * bestD < bestN * d) [best, bestN, bestD] = [rank, n, d];
  }
  return best;
}

// Every step that needs no decision of the player: empty-hand draws, passes, the opponent.
function advance(game) {
  while (!game.over) {
    const seat = game.turn;
    if (game.hands[seat].size === 0) {
      if (game.lakeNext < 52) draw(game, seat);
      game.turn = 1 - seat;
    } else if (seat === PLAYER) {
      return;
    } else {
      ask(game, OPPONENT, opponentChoice(game));
    }
  }
}

function outcome(game) {
  const [mine, theirs] = game.pairs;
  return {
    outcome: mine > theirs ? "win" : mine < theirs ? "loss" : "draw",
    player_pairs: mine,
    opponent_pairs: theirs,
    score: 1000 + 30 * (mine - theirs),
    player_asks: game.asks[PLAYER],
    opponent_asks: game.asks[OPPONENT],
    opponent_asked: game.opponentAsked.join(","),
  };
}

function checkDeck(deck) {
  if (!Array.isArray(deck) || deck.length !== 52 || new Set(deck).size !== 52 ||
      !deck.every((card) => UNSHUFFLED.includes(card))) {
    throw new TypeError("a deck is a list of the 52 distinct cards");
  }
  return deck.slice();
}

// One §5 Pêche case ({seed | deck, moves}) -> the §5 output fields, or {error, index} for a
// move list the rules refuse, or {error: "bad_input", detail} for a malformed case.
export async function replayPeche(input) {
  let deck;
  try {
    if ((input.seed === undefined) === (input.deck === undefined)) throw new TypeError("give exactly one of seed or deck");
    deck = input.seed !== undefined ? await shuffledDeck(input.seed) : checkDeck(input.deck);
    if (!Array.isArray(input.moves)) throw new TypeError("moves is a list of ranks");
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;  // WebCrypto missing is not the input's fault
    return { error: "bad_input", detail: err.message };
  }
  const game = deal(deck);
  advance(game);
  const moves = input.moves;
  for (let index = 0; index < moves.length; index++) {
    if (game.over) return { error: "extra_moves", index };
    const rank = moves[index];
    if (typeof rank !== "string" || !RANK_SET.has(rank)) return { error: "bad_move", index };
    if (!game.hands[PLAYER].has(rank)) return { error: "illegal_ask", index };
    ask(game, PLAYER, rank);
    advance(game);
  }
  if (!game.over) return { error: "incomplete", index: moves.length };
  return outcome(game);
}

// docs/rules.md §2's ranking, as far as the published lines show it: ranks rising from 1 (a
// provisional newcomer's rank is a gap: ranked, not listed), score descending, then asks
// ascending, then the earlier finish (when lines carry `finished_at`). Returns the 0-based
// index of the first line out of order, or -1.
export function firstOutOfOrder(entries) {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (!Number.isInteger(e.rank) || e.rank < (i === 0 ? 1 : entries[i - 1].rank + 1)) return i;
    if (i === 0) continue;
    const before = entries[i - 1];
    if (e.score !== before.score) {
      if (e.score > before.score) return i;
    } else if (e.asks !== before.asks) {
      if (e.asks < before.asks) return i;
    } else if (e.finished_at && before.finished_at && Date.parse(e.finished_at) < Date.parse(before.finished_at)) {
      return i;
    }
  }
  return -1;
}
