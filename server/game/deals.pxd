# Declarations for the OPTIONAL compiled build of deals.py (see engine.pxd and
# server/_build/backend.py): the stream's two loops on C integers. A word is
# below 2**32 and n at most 2**32, so every product fits in 64 bits.

cimport cython


@cython.locals(i=Py_ssize_t, j=Py_ssize_t, w=cython.ulonglong)
cpdef _steps(list words, object refill, list items, Py_ssize_t start, Py_ssize_t stop)

cpdef unsigned long long _scale(unsigned long long word, unsigned long long n)
