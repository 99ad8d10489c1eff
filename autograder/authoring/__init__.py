"""The course author's side: the lectures' notebooks from their MyST sources, the release a
student gets, the lecture audit (`nano-course check NN`), the sample class and the catalogues
of deliberately wrong (mutants) and differently right (alternatives) solutions."""
