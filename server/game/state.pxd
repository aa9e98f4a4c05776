# Declarations for the OPTIONAL compiled build of state.py (Cython, "augmenting
# .pxd": state.py stays the one source, and runs unchanged as plain Python).
# See engine.pxd and server/_build/backend.py. Keep it in step with state.py:
# every attribute of Position.__slots__ is declared here, public (house.py,
# scoring.py and the search read and write them), and the steps have C
# signatures: cpdef where the rules modules call them from Python, cdef (C
# only, as fast as the engine's own) for the three only the engine calls.
# engine.pxd's GameState extends this class.

cimport cython

cdef int NONE, WILD, EVERYONE
cdef int WD4
cdef tuple CLASSIC_POINTS, STANDARD_POINTS
cdef object CHOOSE_COLOUR, PLAYING, PENALTY
cdef object EV_DREW, EV_DREW_CARDS, EV_RESHUFFLED
cdef object new_event
cdef tuple TURN, DREW, DREW_ONE, FITS
cdef dict DIRECTION_CHANGED


cdef class Position:
    cdef public int after_choice
    cdef public tuple card_points
    cdef public int catchable
    cdef public int colour_in_force
    cdef public int current
    cdef public int dealer
    cdef public bint defer_draws
    cdef public int direction
    cdef public list discards
    cdef public int drawn_card
    cdef public bint first_play
    cdef public tuple fits
    cdef public tuple game_winners
    cdef public list hands
    cdef public bint house_effects
    cdef public list out_seats
    cdef public int pending_penalty
    cdef public object phase
    cdef public bint plain
    cdef public int players
    cdef public tuple plays
    cdef public tuple plays_uno
    cdef public list ring
    cdef public list ring_pos
    cdef public object rng
    cdef public int round_number
    cdef public int round_winner
    cdef public object rules
    cdef public list score_sheet
    cdef public object seed
    cdef public int stack_rank
    cdef public int start_direction
    cdef public list stock
    cdef public bint strict_uno
    cdef public list uno_calls
    cdef public Py_ssize_t unshuffled
    cdef public int wd4_by
    cdef public bint wd4_guilty
    cdef public tuple wd4_hand

    @cython.locals(m=Py_ssize_t, low=Py_ssize_t)
    cdef list pop_cards(self, Py_ssize_t k)

    cpdef require_turn(self, int seat, object phase, object reason, str message)

    cpdef list open_penalty(self, int victim, int cards, int rank, list events)

    cpdef clear_penalty(self)

    @cython.locals(ring=list, at=int)
    cpdef int seat_after(self, int seat, int k)

    cpdef reverse(self, list events)

    @cython.locals(ring=list, nxt=int, at=int)
    cdef pass_turn(self, int seat, list events)

    cdef bint can_draw(self)

    @cython.locals(draw=list, m=Py_ssize_t, j=Py_ssize_t, n=Py_ssize_t, got=list, discard=list)
    cpdef list draw_cards(self, int seat, int k, list events)
