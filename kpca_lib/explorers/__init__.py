"""The book's explorers: sliders live in a notebook, precomputed in the HTML book.

One module per chapter's explorer holds its pure computation (parameters ->
arrays and numbers, which the tests call directly) and its drawing function;
:class:`Explorer` makes both the live ipywidget and the precomputed HTML
explorer (:class:`StaticExplorer`) from that one drawing function.

========================  ===================================================