#!/usr/bin/env python
import os
import sys


def main():
    try:
        import django  # noqa: F401
    except ImportError:
        # Run by a bare `python3` (e.g. shared/tools/check-vectors): use the project's venv.
        venv = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".venv")
        venv_python = os.path.join(venv, "bin", "python")
        if os.path.exists(venv_python) and os.path.realpath(sys.prefix) != os.path.realpath(venv):
            os.execv(venv_python, [venv_python, *sys.argv])
        raise
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
