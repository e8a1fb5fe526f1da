"""Front ends (介面), layer 5: the `guandan` command and the documentation generator.

May import from every layer below; nothing in the package imports from here.
"""
