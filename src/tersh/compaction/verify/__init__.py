"""The verifier: the facts an output carries and whether a compaction keeps them all.

``facts`` defines what a text carries (the plain, line-by-line definition of every fact kind);
``scan`` finds the same facts in bulk; ``renderings`` lists the forms a compaction may use to
restate a fact; ``holds`` decides whether a proposal keeps them (``refusal``, ``missing_facts``).
"""
