"""Typical wrong answers to 03_graph, for the project's tests (never released: see
nbgrader_config.py). Each entry replaces one solution cell (by its nbgrader grade_id); every
other solution cell keeps the correct answer. Autograding the result must give a score strictly
between zero and full marks (tests/test_pipeline.py)."""

DESCRIPTION = (
    "topological_order is micrograd's recursive depth-first sort: a valid order, but a "
    "RecursionError on a deep graph; count_saved walks every edge without remembering visited "
    "nodes, so a node reached along two edges is counted twice."
)

WRONG_ANSWERS = {
    "topological_order": '''def topological_order(y):
    order, visited = [], set()

    def visit(node):
        if node in visited:
            return
        visited.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                visit(nxt)
        order.append(node)

    visit(y.grad_fn)
    return order[::-1]
''',
    "count_saved": '''def count_saved(y):
    total, stack = 0, [y.grad_fn]
    while stack:
        node = stack.pop()
        total += len(node.saved_items())
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return total
''',
}
