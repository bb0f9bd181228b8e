"""Outside production the seed secret is the install's own: made at random on first
start and kept out of the repository, so nobody can compute another site's deals."""

import os
import stat
import subprocess
import sys

from tests.conftest import ROOT

SEED_OF_A_DAY = (
    "import django; django.setup(); import datetime as dt; from challenges import days; "
    "print(days.daily_seed('peche', dt.date(2031, 3, 14), 1))"
)


def seed_of_a_fresh_install(secrets_dir) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("DAILY_SEED_SECRET", "DJANGO_SECRET_KEY")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings.local", LOCAL_SECRETS_DIR=str(secrets_dir))
    done = subprocess.run(
        [sys.executable, "-c", SEED_OF_A_DAY], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_two_fresh_installs_deal_different_days(tmp_path):
    first, second = seed_of_a_fresh_install(tmp_path / "a"), seed_of_a_fresh_install(tmp_path / "b")
    assert len(first) == 64 and first != second
    # An install keeps its secret: restarting does not change the day's deal.
    assert seed_of_a_fresh_install(tmp_path / "a") == first
    secret = tmp_path / "a" / "daily_seed_secret"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and len(secret.read_text()) >= 32


def test_the_default_secrets_folder_is_kept_out_of_the_repository():
    ignored = subprocess.run(["git", "check-ignore", "-q", ".secrets/daily_seed_secret"], cwd=ROOT)
    assert ignored.returncode == 0
