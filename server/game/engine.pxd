# Declarations for the OPTIONAL compiled build of engine.py (Cython, "augmenting
# .pxd": engine.py stays the one source, and runs unchanged as plain Python).
# The in-tree build backend (server/_build/backend.py) cythonizes engine.py
# with this file beside it when a wheel is built; an editable install and a
# machine without a C compiler get pure Python. Keep it in step with engine.py:
# GameState's attributes are its base's (state.pxd: Position, public), and the
# hot methods have C signatures. tests/game/test_compiled.py checks the build.

cimport cython
from unoplay.game.state cimport Position

# Module constants (imported by engine.py from cards, actions, hotpath...) as
# C values: a rank compared with SKIP is then a C comparison, a phase test a
# pointer comparison, a table lookup an index into a known tuple.
cdef int NONE, DECK_SIZE, WILD, EVERYONE, HAND_SIZE
cdef int SKIP, REVERSE, DRAW_TWO, WILD_RANK, WD4
cdef tuple COLOUR, RANK, IS_NUMBER, IS_WILD
cdef object CHOOSE_COLOUR, PLAYING, DRAWN, PENALTY, ROUND_OVER
cdef object KIND_PLAY, KIND_DRAW, KIND_KEEP, KIND_CHALLENGE, KIND_ACCEPT, KIND_CALL_UNO
cdef object KIND_CATCH, KIND_CHOOSE_COLOUR
cdef object DRAW, KEEP, CHALLENGE, ACCEPT, CALL_UNO
cdef object EV_HAND_DEALT, EV_PLAYED, EV_CHALLENGED, EV_HAND_SHOWN
cdef object EV_PENALTY_ACCEPTED, EV_UNO_CAUGHT
cdef object new_event
cdef tuple TURN, SKIPPED, UNO_CALLED, KEPT, PLAYED, STARTER_FLIPPED, FITS


@cython.final
cdef class GameState(Position):
    @cython.locals(other=GameState)
    cpdef GameState clone(self)

    @cython.locals(hand=list, fits=tuple, table=tuple, acts=list, caught=int, c=int)
    cpdef list legal_actions(self, int seat)

    cpdef list apply(self, int seat, object action)

    @cython.locals(
        card=int, colour=int, uno=bint, target=int, hand=list, top=int, jump=bint,
        rank=int, k=int, left=int, out=bint, ring=list, m=int, at=int, d=int, nxt=int,
        victim=int, skips=int, i=int, events=list,
    )
    cpdef list _play(self, int seat, object action)

    cpdef tuple _validate_play(self, int seat, object action)

    @cython.locals(colour=int, top_rank=int, c=int)
    cdef bint _guilty(self, list hand, int top)

    @cython.locals(events=list, got=list, card=int, first_number=bint)
    cdef list _draw_turn(self, int seat)
