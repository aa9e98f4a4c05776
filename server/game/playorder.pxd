# Declarations for the OPTIONAL compiled build of playorder.py (see engine.pxd
# and server/_build/backend.py): the search's playouts rank their plays by
# play_key, called from compiled search.py as a C function.

cdef tuple RANK, STANDARD_POINTS

cpdef int play_key(int card, int laid, int held, tuple attacks)
