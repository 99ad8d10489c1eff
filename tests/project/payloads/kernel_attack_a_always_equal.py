"""Kernel attack `a-always-equal` of the shared class (tests/project/one_class.py): (a) a result
equal to anything. Appended to a partial hand-in's nano/tools.py; its grade is test_verify's to
check."""

class _Yes(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


def read_file(path):
    return _Yes("")
