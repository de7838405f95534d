"""Start Django on a throw-away benchmark database (never the developer's or the production one)."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = ROOT / "var" / "bench"


def setup_django(*, database: Path | None = None, database_url: str | None = None) -> None:
    """Point DATABASE_URL at ``database`` (SQLite) or ``database_url``, set up Django and migrate it."""
    sys.path.insert(0, str(ROOT / "platform"))  # platform/ is the source root, not a package
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_ENV", "development")  # a throw-away local instance: the built-in key
    os.environ["DEBUG"] = "False"  # production-like; DEBUG would also log every query in memory
    os.environ.setdefault("GOLD_ROOT", str(BENCH_DIR / "gold"))
    os.environ.setdefault("MEDIA_ROOT", str(BENCH_DIR / "media"))
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
