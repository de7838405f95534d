"""One settings module; every value comes from the environment.

Production is the default and is safe as it stands: DEBUG off, secure cookies, HSTS and an HTTPS redirect,
and no default SECRET_KEY. ``DJANGO_ENV=development`` (set by the Makefile, the test configuration and
.env.example) turns on the development defaults: DEBUG, the built-in key, plain-HTTP cookies.
See .env.example for the full list.
"""

import os
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parents[2]  # the project root (manage.py's folder)
PLATFORM_DIR = BASE_DIR / "platform"

env = environ.Env()
# scripts/setup.sh writes .env on a development checkout; ENV_FILE names another file.
environ.Env.read_env(os.environ.get("ENV_FILE", str(BASE_DIR / ".env")), overwrite=False)

DJANGO_ENV = env.str("DJANGO_ENV", default="production")
if DJANGO_ENV not in ("production", "development"):
    raise ImproperlyConfigured(f"DJANGO_ENV={DJANGO_ENV!r}: use 'production' (the default) or 'development'")
DEVELOPMENT = DJANGO_ENV == "development"
DEBUG = env.bool("DEBUG", default=DEVELOPMENT)
DEV_SECRET_KEY = "dev-only-insecure-key-change-me"
SECRET_KEY = env.str("SECRET_KEY", default=DEV_SECRET_KEY if DEVELOPMENT else "")
if not DEVELOPMENT and SECRET_KEY in ("", DEV_SECRET_KEY):
    raise ImproperlyConfigured(
        "SECRET_KEY is unset or the development default: set a long random SECRET_KEY in production "
        "(or DJANGO_ENV=development on a development machine)"
    )
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",  # intcomma: every count on the site is shown as 2,025
    "accounts",
    "competitions",
    "teams",
    "submissions",
    "leaderboards",
    "validation",
    "console",  # organizers' pages over the other apps' services (docs/organizers.md)
    "onboarding",  # participants' Data page, starting kit, API token page
    # the token API (docs/reference/api.md)
    *["rest_framework", "rest_framework.authtoken", "drf_spectacular", "api"],
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "config.middleware.SlashRedirectMiddleware",  # Django's CommonMiddleware; a POST without the slash: 308
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",  # a lost database: a 503, not a traceback
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [PLATFORM_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "competitions.context_processors.navigation",  # Data and Leaderboard on every page
            ],
        },
    },
]

VAR_DIR = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var")))
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
# The test database is a file (SQLite) or a per-run name (PostgreSQL) so a real Celery worker process
# started by the integration tests can open it; the pid keeps parallel test runs from sharing one.
_test_db = env.str("TEST_DATABASE_NAME", default="")
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["TEST"] = {"NAME": _test_db or str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")}
    # Concurrent writers (web processes, scoring workers) on one SQLite file: write-ahead logging (readers
    # never wait for the writer), transactions that take the write lock when they begin (a deferred one
    # that must upgrade its lock fails at once with "database is locked", whatever the timeout), and a
    # writer that waits up to SQLITE_BUSY_TIMEOUT seconds for the lock instead of failing.
    _sqlite = DATABASES["default"].setdefault("OPTIONS", {})
    _sqlite.setdefault("timeout", env.int("SQLITE_BUSY_TIMEOUT", default=20))
    _sqlite.setdefault("transaction_mode", "IMMEDIATE")
    _sqlite.setdefault("init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
else:
    DATABASES["default"]["TEST"] = {"NAME": _test_db or f"test_recam_{os.getpid()}"}
    # Each process names its sessions (pg_stat_activity.application_name): operators see which web, worker
    # or test process holds a connection, and a test can end the sessions of other processes only.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("application_name", f"recam-{os.getpid()}")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Rate limits, login lockouts and the leaderboard page cache live here, so it must be one cache that every
# web process shares and that outlives their restarts: the Redis the project already runs (Django's
# RedisCache), REDIS_URL unless CACHE_URL names another. The tests use locmemcache:// (pyproject.toml).
REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
CACHES = {"default": env.cache("CACHE_URL", default=REDIS_URL)}
CACHES["default"].setdefault("KEY_PREFIX", "recam")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    # not a check: revokes the API tokens whenever a password changes, by any path (accounts.password_hooks)
    {"NAME": "accounts.password_hooks.RevokeApiTokensOnPasswordChange"},
]
# E-mail (sign-up address, password resets): printed to the console unless SMTP is configured, e.g.
# EMAIL_URL=smtp+tls://user:password@smtp.example.org:587 and DEFAULT_FROM_EMAIL=recam@example.org.
_email = env.email_url("EMAIL_URL", default="consolemail://")
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default=_email["EMAIL_BACKEND"])
for _key in (
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
):
    if _email.get(_key) is not None:
        globals()[_key] = _email[_key]
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="ReCAM organizers <recam@localhost>")
# Behind HTTPS in production: cookies only over HTTPS, HSTS, HTTP redirected (each overridable, e.g.
# SECURE_SSL_REDIRECT=false when a proxy already redirects; SECURE_PROXY_SSL_HEADER_ENABLED when it sets
# X-Forwarded-Proto).
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEVELOPMENT)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEVELOPMENT)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEVELOPMENT)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEVELOPMENT else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if env.bool("SECURE_PROXY_SSL_HEADER_ENABLED", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns on every request while it is missing
# Serve from the source folders too, so pages are styled before (or without) collectstatic, e.g. in tests.
WHITENOISE_USE_FINDERS = env.bool("WHITENOISE_USE_FINDERS", default=True)
STATICFILES_DIRS = [PLATFORM_DIR / "static"]
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(VAR_DIR / "media")))
# Gold answers live outside MEDIA_ROOT: nothing serves this folder; only the scoring service reads it.
GOLD_ROOT = Path(env.str("GOLD_ROOT", default=str(VAR_DIR / "gold")))

# Organizer console datasets: uploaded pairs files and generation jobs' outputs (docs/organizers.md).
DATASETS_ROOT = Path(env.str("DATASETS_ROOT", default=str(VAR_DIR / "datasets")))
XSUM_PATH = env.str(
    "XSUM_PATH", default=str(BASE_DIR.parent / "shared" / "data" / "xsum" / "xsum_test_1k.jsonl")
)
CONSOLE_GENERATION_TASK = "console.generate_dataset"
# A DISTO model directory (python -m datagen disto train): the console's quality view shows each
# distractor's DISTO score from the quality report when it is set; empty: no DISTO column, a note.
DISTO_MODEL = env.str("DISTO_MODEL", default="")

# --- ReCAM ---------------------------------------------------------------------------------------
RECAM_DATA_DIR = Path(env.str("RECAM_DATA_DIR", default=str(BASE_DIR / "data" / "recam")))
SUBMISSION_MAX_BYTES = env.int("SUBMISSION_MAX_BYTES", default=10 * 1024 * 1024)
RECAM_COMPETITION_SLUG = env.str("RECAM_COMPETITION_SLUG", default="recam-2021")
# The version of the rules and terms (templates/onboarding/rules.html) a team accepts; stored with each
# acceptance (teams.RulesAcceptance). Give a new one whenever the rules text changes.
RULES_VERSION = env.str("RULES_VERSION", default="2026-11-23")
# Where recam_organizer writes a generated organizer password (when ORGANIZER_PASSWORD is not set).
ORGANIZER_USERNAME = env.str("ORGANIZER_USERNAME", default="organizer")
ORGANIZER_PASSWORD_FILE = Path(
    env.str("ORGANIZER_PASSWORD_FILE", default=str(VAR_DIR / "organizer-password.txt"))
)

# --- Celery (Redis broker; REDIS_URL above) ------------------------------------------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=REDIS_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=300)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=240)
# Long model jobs (readers, baselines, datagen shards) declare their own, larger limits.
CELERY_LONG_TASK_TIME_LIMIT = env.int("CELERY_LONG_TASK_TIME_LIMIT", default=6 * 3600)
# The visibility timeout must exceed the longest task's time limit, or Redis redelivers a running task.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_LONG_TASK_TIME_LIMIT + 600}
# A worker that consumes only the scoring queue (scripts/run.sh's) keeps its unacknowledged messages in
# a hash of its own with a short visibility timeout (tasks/app.py switches to these options): the
# delivery of a scoring worker killed with SIGKILL is handed to a restarted one within about a minute,
# while hours-long model jobs keep the long timeout. Scoring tasks must finish well inside it (their
# time limit is SCORING_TASK_TIME_LIMIT).
SCORING_VISIBILITY_TIMEOUT = env.int("SCORING_VISIBILITY_TIMEOUT", default=45)
SCORING_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": SCORING_VISIBILITY_TIMEOUT,
    "unacked_key": "scoring_unacked",
    "unacked_index_key": "scoring_unacked_index",
    "unacked_mutex_key": "scoring_unacked_mutex",
    "unacked_restore_interval": 5,  # sweep for expired deliveries every 5 s (kombu's default: ~100 s)
    "unacked_restore_throttle": 1,
}
SCORING_TASK_TIME_LIMIT = env.int("SCORING_TASK_TIME_LIMIT", default=max(5, SCORING_VISIBILITY_TIMEOUT - 15))
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
# Celery's Django fixup closes the database connection around every task unless this is set; with it,
# a worker keeps its connection for CONN_MAX_AGE (tasks/scoring.py still drops broken or expired ones).
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)
CELERY_SCORING_QUEUE = env.str("CELERY_SCORING_QUEUE", default="scoring")
# How many submissions the scoring workers take at once (scripts/run.sh: -c 2); used for the queue ETA.
SCORING_WORKERS = env.int("SCORING_WORKERS", default=2)
# Seconds a web process reuses the queue ETA's two medians (submissions.queue.queue_medians).
RECAM_QUEUE_MEDIAN_SECONDS = env.float("RECAM_QUEUE_MEDIAN_SECONDS", default=2.0)
# Leaderboard statistics (leaderboards.intervals): bootstrap resamples and seed.
RECAM_BOOTSTRAP_RESAMPLES = env.int("RECAM_BOOTSTRAP_RESAMPLES", default=1000)
RECAM_BOOTSTRAP_SEED = env.int("RECAM_BOOTSTRAP_SEED", default=20210401)
# The statistics task runs once the phase has had no score change for QUIET seconds, and at least every
# MAX_WAIT seconds during a long burst (docs/statistics.md).
RECAM_STATISTICS_QUIET_SECONDS = env.float("RECAM_STATISTICS_QUIET_SECONDS", default=1.0)
RECAM_STATISTICS_MAX_WAIT_SECONDS = env.float("RECAM_STATISTICS_MAX_WAIT_SECONDS", default=5.0)

# --- Scoring that survives faults (docs/operations.md) -----------------------------------------
# A submission queued or scoring for longer than this is stuck: the reaper re-queues it, and after
# SCORING_MAX_ATTEMPTS tries fails it as an infrastructure failure (which does not count against quota).
STUCK_SUBMISSION_MINUTES = env.float("STUCK_SUBMISSION_MINUTES", default=5)
SCORING_MAX_ATTEMPTS = env.int("SCORING_MAX_ATTEMPTS", default=3)
REAPER_INTERVAL_SECONDS = env.float("REAPER_INTERVAL_SECONDS", default=60)
# The reaper has a queue and a worker of its own (scripts/run.sh): it must run when the scoring worker
# is dead or busy, and never wait behind an hours-long model job.
CELERY_MAINTENANCE_QUEUE = env.str("CELERY_MAINTENANCE_QUEUE", default="maintenance")
CELERY_BEAT_SCHEDULE = {
    "reap-stuck-submissions": {
        "task": "submissions.reap",  # submissions.services.REAP_TASK
        "schedule": REAPER_INTERVAL_SECONDS,
        "options": {"queue": CELERY_MAINTENANCE_QUEUE, "expires": REAPER_INTERVAL_SECONDS},
    },
}

# --- Rate limits (accounts/ratelimit.py): "count/seconds" per client, over a fixed window ----------
RATELIMIT_ENABLED = env.bool("RATELIMIT_ENABLED", default=True)
RATELIMIT_CACHE = env.str("RATELIMIT_CACHE", default="default")
RATELIMIT_LOGIN = env.str("RATELIMIT_LOGIN", default="10/300")  # per IP and username
RATELIMIT_SIGNUP = env.str("RATELIMIT_SIGNUP", default="20/3600")  # per IP
RATELIMIT_UPLOAD = env.str("RATELIMIT_UPLOAD", default="30/60")  # per user
RATELIMIT_API_TOKEN = env.str("RATELIMIT_API_TOKEN", default="20/300")  # wrong API tokens, per IP
# The API authenticates by token or by the site's session, nothing else: DRF's default Basic
# authentication would check a password on every request, outside the login page's rate limit and lockout.
# Passwords reach the API only at /api/token/ (limited as logins); wrong tokens are limited per address.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.RateLimitedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
}
# --- Human validation of generated questions (docs/validation.md) ----------------------------------
# Where "select a file on the server" looks for generated jsonl files (datagen options writes them).
VALIDATION_SOURCE_DIR = Path(env.str("VALIDATION_SOURCE_DIR", default=str(VAR_DIR / "datagen")))
# Known-good labelled questions mixed in as gold checks, and how many of them a batch samples. Unset:
# the official dev set of the batch's own subtask (RECAM_DATA_DIR/training_data/Task_<n>_dev.jsonl).
VALIDATION_GOLD_FILE = env.str("VALIDATION_GOLD_FILE", default="")
VALIDATION_GOLD_POOL = env.int("VALIDATION_GOLD_POOL", default=50)
# An assignment unanswered for this long returns its unanswered questions to the pool.
VALIDATION_ASSIGNMENT_TIMEOUT_MINUTES = env.float("VALIDATION_ASSIGNMENT_TIMEOUT_MINUTES", default=60)
CELERY_CPU_QUEUE = env.str("CELERY_CPU_QUEUE", default="cpu")
CELERY_GPU_QUEUE = env.str("CELERY_GPU_QUEUE", default="gpu")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
