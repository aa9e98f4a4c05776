"""``python -m unoplay.client.match``: a worker process of the match runner
(:mod:`.worker`); the runner starts it, people use ``uno match``."""

import sys

from .worker import main

sys.exit(main())
