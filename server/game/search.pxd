# Declarations for the OPTIONAL compiled build of search.py (see engine.pxd and
# server/_build/backend.py): a playout's loop and its greedy-like policy on C
# values, calling the compiled engine's methods directly. search.py stays the
# one source and runs unchanged as plain Python.

cimport cython
from unoplay.game.engine cimport GameState
from unoplay.game.playorder cimport play_key

# DECK_SIZE stays a Python int: a card mask (1 << card, 108 bits) must not be
# computed in C integers.
cdef int NONE, _WILD_RANK
cdef tuple COLOUR, RANK, ATTACKING, NOT_ATTACKING
cdef object _PLAY, _CATCH, _CALL_UNO, _DRAW, _KEEP, _PLAYING, _DRAWN, _ROUND_OVER, DRAW

@cython.locals(caught=int, other=int)
cpdef settle(GameState state)

@cython.locals(phase=object)
cpdef object rollout_move(GameState state, int seat, object rng)

@cython.locals(
    hand=list, cards=list, fits=tuple, counts=list, c=int, card=int, rank=int, best=int,
    best_key=int, wild=int, key=int, uno=bint, colour=int, attack=tuple, variants=tuple,
)
cpdef object _plain_move(GameState state, int seat, bint drawn)

@cython.locals(mover=int, legal=list)
cpdef int playout(GameState state, int out_before, int cap, object rng, object bot=*)

cpdef bint _offers(list legal, object kind)
