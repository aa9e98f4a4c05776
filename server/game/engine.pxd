# Declarations for the OPTIONAL compiled build of engine.py (Cython, "augmenting
# .pxd": engine.py stays the one source, and runs unchanged as plain Python).
# The in-tree build backend (server/_build/backend.py) cythonizes engine.py
# with this file beside it when a wheel is built; an editable install and a
# machine without a C compiler get pure Python. Keep it in step with engine.py:
# every attribute of GameState.__slots__ is declared here, public (house.py,
# scoring.py and the search code read and write them from Python), and the hot
# methods have C signatures. tests/game/test_compiled.py checks the build.

cimport cython

# Module constants (imported by engine.py from cards, actions, hotpath...) as
# C values: a rank compared with SKIP is then a C comparison, a phase test a
# pointer comparison, a table lookup an index into a known tuple.
cdef int NONE, DECK_SIZE, WILD, EVERYONE, HAND_SIZE
cdef int SKIP, REVERSE, DRAW_TWO, WILD_RANK, WD4
cdef tuple COLOUR, RANK, IS_NUMBER, IS_WILD, CLASSIC_POINTS, STANDARD_POINTS
cdef object CHOOSE_COLOUR, PLAYING, DRAWN, PENALTY, ROUND_OVER
cdef object KIND_PLAY, KIND_DRAW, KIND_KEEP, KIND_CHALLENGE, KIND_ACCEPT, KIND_CALL_UNO
cdef object KIND_CATCH, KIND_CHOOSE_COLOUR
cdef object DRAW, KEEP, CHALLENGE, ACCEPT, CALL_UNO
cdef object EV_DREW, EV_DREW_CARDS, EV_HAND_DEALT, EV_PLAYED, EV_CHALLENGED, EV_HAND_SHOWN
cdef object EV_PENALTY_ACCEPTED, EV_RESHUFFLED, EV_UNO_CAUGHT
cdef object new_event
cdef tuple TURN, SKIPPED, UNO_CALLED, KEPT, PLAYED, DREW, DREW_ONE, STARTER_FLIPPED, FITS
cdef dict DIRECTION_CHANGED


@cython.final
cdef class GameState:
    cdef public int _after_choice
    cdef public int _catchable
    cdef public int _colour
    cdef public int _current
    cdef public int _dealer
    cdef public bint _defer_draws
    cdef public int _direction
    cdef public list _discard
    cdef public list _draw
    cdef public int _drawn
    cdef public bint _first_play
    cdef public tuple _fits
    cdef public tuple _game_winners
    cdef public list _hands
    cdef public bint _house
    cdef public list _out
    cdef public int _pending
    cdef public object _phase
    cdef public bint _plain
    cdef public tuple _plays
    cdef public tuple _plays_uno
    cdef public tuple _points
    cdef public list _pos
    cdef public list _ring
    cdef public object _rng
    cdef public int _round
    cdef public int _round_winner
    cdef public list _scores
    cdef public int _stack_rank
    cdef public int _start_direction
    cdef public bint _strict
    cdef public list _uno
    cdef public Py_ssize_t _unshuffled
    cdef public int _wd4_by
    cdef public bint _wd4_guilty
    cdef public tuple _wd4_hand
    cdef public int players
    cdef public object rules
    cdef public object seed

    @cython.locals(other=GameState)
    cpdef GameState clone(self)

    @cython.locals(m=Py_ssize_t, low=Py_ssize_t)
    cdef list _pop_cards(self, Py_ssize_t k)

    @cython.locals(hand=list, fits=tuple, table=tuple, acts=list, caught=int, c=int)
    cpdef list legal_actions(self, int seat)

    cpdef list apply(self, int seat, object action)

    cpdef _require_turn(self, int seat, object phase, object reason, str message)

    @cython.locals(
        card=int, colour=int, uno=bint, target=int, hand=list, top=int, jump=bint,
        rank=int, k=int, left=int, out=bint, ring=list, m=int, at=int, d=int, nxt=int,
        victim=int, skips=int, i=int, events=list,
    )
    cpdef list _play(self, int seat, object action)

    cpdef tuple _validate_play(self, int seat, object action)

    cpdef list _open_penalty(self, int victim, int cards, int rank, list events)

    @cython.locals(colour=int, top_rank=int, c=int)
    cdef bint _guilty(self, list hand, int top)

    @cython.locals(events=list, got=list, card=int, first_number=bint)
    cdef list _draw_turn(self, int seat)

    cpdef _clear_penalty(self)

    @cython.locals(ring=list, at=int)
    cpdef int _step(self, int seat, int k)

    cpdef _reverse(self, list events)

    @cython.locals(ring=list, nxt=int, at=int)
    cdef _pass_turn(self, int seat, list events)

    cdef bint _can_draw(self)

    @cython.locals(draw=list, m=Py_ssize_t, j=Py_ssize_t, n=Py_ssize_t, got=list, discard=list)
    cpdef list _draw_cards(self, int seat, int k, list events)
