"""YAML that cannot blow up: limits on size, aliases, nesting and expanded nodes, checked before
anything is built.

PyYAML (and ruamel) expand aliases without limit, so 529 bytes of nested aliases ("billion
laughs") build gigabytes. The checks here read the parser's event stream and the composed node
graph, in which an alias is one shared node, so their cost stays proportional to the source;
the value is constructed only once the expanded size is known to be bounded. Errors name the
problem and where it is, never the value.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_SOURCE_CHARS = 1_000_000
MAX_EVENTS = 200_000
MAX_ALIASES = 2_000
MAX_DEPTH = 30
MAX_EXPANDED_NODES = 300_000
MAX_EXPANDED_CHARS = 5_000_000  # characters of all scalars once aliases are expanded


class YamlRefused(ValueError):
    """A document over one of the limits, or not valid YAML; the message quotes no content."""


def load_bounded(source: str) -> Any:
    if len(source) > MAX_SOURCE_CHARS:
        raise YamlRefused(f"the playbook is over {MAX_SOURCE_CHARS:,} characters")
    try:
        _check_events(source)
        loader = yaml.SafeLoader(source)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _check_expansion(node)
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        raise YamlRefused(_where(error)) from None


def _check_events(source: str) -> None:
    aliases = depth = 0
    for events, event in enumerate(yaml.parse(source, Loader=yaml.SafeLoader), start=1):
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        if depth > MAX_DEPTH:
            raise YamlRefused(f"nested deeper than {MAX_DEPTH} levels{_line(event)}")
        if aliases > MAX_ALIASES:
            raise YamlRefused(f"more than {MAX_ALIASES:,} aliases (*name){_line(event)}")
        if events > MAX_EVENTS:
            raise YamlRefused(f"more than {MAX_EVENTS:,} YAML nodes{_line(event)}")


def _check_expansion(root: yaml.Node) -> None:
    """Nodes and characters once every alias is expanded, counted over the shared graph."""
    sizes: dict[int, tuple[int, int]] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    open_nodes: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children = _children(node)
        if not children_done:
            if key in open_nodes:
                raise YamlRefused(f"an alias refers to a node that contains it{_line(node)}")
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            continue
        open_nodes.discard(key)
        nodes = 1 + sum(sizes[id(child)][0] for child in children)
        chars = sum(sizes[id(child)][1] for child in children)
        if isinstance(node, yaml.ScalarNode):
            chars += len(node.value)
        if nodes > MAX_EXPANDED_NODES:
            raise YamlRefused(
                f"aliases expand to more than {MAX_EXPANDED_NODES:,} nodes{_line(node)}"
            )
        if chars > MAX_EXPANDED_CHARS:
            raise YamlRefused(
                f"aliases expand to more than {MAX_EXPANDED_CHARS:,} characters{_line(node)}"
            )
        sizes[key] = (nodes, chars)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _line(item: Any) -> str:
    mark = getattr(item, "start_mark", None)
    return f" (line {mark.line + 1})" if mark is not None else ""


def _where(error: yaml.YAMLError) -> str:
    problem = getattr(error, "problem", None) or "not valid YAML"
    mark = getattr(error, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{problem}{where}"
