"""What every command stands on: files written whole (``atomic``), processes that end with the command
(``children``), a signal that unwinds quietly (``unwinding``), outside words kept as text
(``escape``) and the book's chapter list (``toc``)."""
