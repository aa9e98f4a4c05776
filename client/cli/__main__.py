"""``python -m unoplay.client.cli``: the ``uno`` command."""

import sys

from . import main

sys.exit(main())
