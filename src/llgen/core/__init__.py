"""The ground floor: the F2 algebra (f2, layout: LinearLayout), the element types and targets, the shared
vocabulary, names, files and input limits, and the one error type. Imports nothing else of llgen."""
