.PHONY: install derive test slow

install:
	pip install -e '.[test]'

derive:
	otbound derive --all

test:
	python -m pytest

slow:
	python -m pytest -m slow
