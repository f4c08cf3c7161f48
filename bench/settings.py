"""Settings of bench/api.py's server: the platform's, with the bench URLconf (bench/urls.py)."""

from config.settings import *  # the same settings, every one of them

ROOT_URLCONF = "bench.urls"
