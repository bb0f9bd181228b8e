"""Design studies, not measurements of the product: each measures or models a design that is
not built, for the doc that argues it. `make bench` does not run them.

- partitioning: attempts partitioned by day against today's one table (docs/partitioning.md)
- capacity: arithmetic on the measured costs for 100k, 1M and 10M players a day (docs/capacity.md)
"""
