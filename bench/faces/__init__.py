"""The face detector's labelled set and its measure (issue 42, item 3).

``transforms`` (what phones and scanners do to a photo, its labelled faces moved along),
``labelled`` (the hand labels of ``tests/fixtures/faces/labels.json`` and the kinds of photo
made from them), ``measure`` (recall, precision and cost per photo of a detector on each kind;
``python -m bench.faces.measure``).
"""
