"""The paper's section-6 proxies on actual weights: formulas, per-model analysis, depth and width scaling."""
