"""unoplay: networked UNO. ``unoplay.server``, ``unoplay.client``, ``unoplay.v1`` (wire)."""
