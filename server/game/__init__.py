"""The game of UNO, as values and rules: no I/O, no grpc, asyncio, protobuf or clock.

``unoplay.game`` is what both sides share: cards, actions, events, refusal
reasons, the rule set, fair deals, the player's view, the engine and the pure
bot strategies. The server (``unoplay.server``) deals and judges with it; the
client (``unoplay.client``) reads views and chooses actions with it. Nothing
here imports anything outside this package and the standard library.
"""

if __name__ != "unoplay.game":  # it lives in server/game/, but is one package, imported once
    raise ImportError(f"import unoplay.game, not {__name__}: two copies would hold two "
                      "sets of enums")
