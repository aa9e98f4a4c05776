"""unoplay: networked UNO. ``unoplay.v1`` (the generated contract), ``unoplay.wire``
(its codec to and from game values) and ``unoplay.channel`` (channel options),
shared by ``unoplay.server`` and ``unoplay.client``."""
