"""The document tree: section detection (PDF outline, LLM section filtering, or layout heuristics) and the
assembly of blocks into Document -> Section -> Text/Table/Image/Equation."""

from .build import build_tree
from .model import DocumentTree, TreeNode

__all__ = ["DocumentTree", "TreeNode", "build_tree"]
