"""The shared kit of the rules: the rule contract and the renderers rule families build on."""
