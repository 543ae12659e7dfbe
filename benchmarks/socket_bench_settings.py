"""Settings of bench_sockets.py with ``--layer pubsub``: the same as the tests' settings, with
Redis pub/sub as the channel layer (one publish per group message, fanned out in each server)."""

from reviewapp.settings.test import *  # noqa: F403
from reviewapp.settings.test import REDIS_URL

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": "clausewise:channels"},
    }
}
