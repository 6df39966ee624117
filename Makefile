.PHONY: install derive test slow opacus bench

install:
	pip install -e '.[test]'

derive:
	otbound derive --all

test:
	python -m pytest

slow:
	python -m pytest -m slow

opacus:
	pip install torch==2.13.0 -e '.[opacus]' && python -m pytest -m opacus

bench:
	python benchmarks/practitioner_speed.py
	python benchmarks/rdp_benchmark.py
	python benchmarks/fractional_orders.py
	python benchmarks/optimal_conversion.py
	python benchmarks/truncated_poisson.py
	python benchmarks/group_privacy_composition.py
	python benchmarks/pipeline_speed.py
	python benchmarks/with_replacement_vs_agnostic.py
	python benchmarks/independent_mc_table.py
	python benchmarks/certification_cost.py
	python benchmarks/wor_substitution_tight.py
	python benchmarks/worst_case_configurations.py
	python benchmarks/epoch_sampling.py
	python benchmarks/random_allocation.py
