"""One test module per module of report/render/findings: each finding on factory results
(tests/factory.py) for its main cases: an order, within noise, missing data, another GPU."""
