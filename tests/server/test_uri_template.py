"""RFC 6570 expansion (the RFC's own examples), matching for resource lookup, and safe_join."""

import os
from pathlib import Path
from typing import Any

import pytest

from mcpkit.protocol._errors import INVALID_PARAMS, UsageError
from mcpkit.server._uri_template import (
    MAX_MATCH_URI_LENGTH,
    UnsafePathError,
    UriTemplate,
    safe_join,
)

# RFC 6570 section 3.2 variables
RFC_VALUES: dict[str, Any] = {
    "count": ["one", "two", "three"],
    "dom": ["example", "com"],
    "dub": "me/too",
    "hello": "Hello World!",
    "half": "50%",
    "var": "value",
    "who": "fred",
    "base": "http://example.com/home/",
    "path": "/foo/bar",
    "list": ["red", "green", "blue"],
    "keys": {"semi": ";", "dot": ".", "comma": ","},
    "v": "6",
    "x": "1024",
    "y": "768",
    "empty": "",
    "empty_keys": {},
    "undef": None,
}

RFC_EXAMPLES = [
    # 3.2.1 variable expansion
    ("{count}", "one,two,three"),
    ("{count*}", "one,two,three"),
    ("{/count}", "/one,two,three"),
    ("{/count*}", "/one/two/three"),
    ("{;count}", ";count=one,two,three"),
    ("{;count*}", ";count=one;count=two;count=three"),
    ("{?count}", "?count=one,two,three"),
    ("{?count*}", "?count=one&count=two&count=three"),
    ("{&count*}", "&count=one&count=two&count=three"),
    # 3.2.2 simple string expansion
    ("{var}", "value"),
    ("{hello}", "Hello%20World%21"),
    ("{half}", "50%25"),
    ("O{empty}X", "OX"),
    ("O{undef}X", "OX"),
    ("{x,y}", "1024,768"),
    ("{x,hello,y}", "1024,Hello%20World%21,768"),
    ("?{x,empty}", "?1024,"),
    ("?{x,undef}", "?1024"),
    ("?{undef,y}", "?768"),
    ("{var:3}", "val"),
    ("{var:30}", "value"),
    ("{list}", "red,green,blue"),
    ("{list*}", "red,green,blue"),
    ("{keys}", "semi,%3B,dot,.,comma,%2C"),
    ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
    # 3.2.3 reserved expansion
    ("{+var}", "value"),
    ("{+hello}", "Hello%20World!"),
    ("{+half}", "50%25"),
    ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
    ("{+base}index", "http://example.com/home/index"),
    ("O{+empty}X", "OX"),
    ("O{+undef}X", "OX"),
    ("{+path}/here", "/foo/bar/here"),
    ("here?ref={+path}", "here?ref=/foo/bar"),
    ("up{+path}{var}/here", "up/foo/barvalue/here"),
    ("{+x,hello,y}", "1024,Hello%20World!,768"),
    ("{+path,x}/here", "/foo/bar,1024/here"),
    ("{+path:6}/here", "/foo/b/here"),
    ("{+list}", "red,green,blue"),
    ("{+list*}", "red,green,blue"),
    ("{+keys}", "semi,;,dot,.,comma,,"),
    ("{+keys*}", "semi=;,dot=.,comma=,"),
    # 3.2.4 fragment expansion
    ("{#var}", "#value"),
    ("{#hello}", "#Hello%20World!"),
    ("{#half}", "#50%25"),
    ("foo{#empty}", "foo#"),
    ("foo{#undef}", "foo"),
    ("{#x,hello,y}", "#1024,Hello%20World!,768"),
    ("{#path,x}/here", "#/foo/bar,1024/here"),
    ("{#path:6}/here", "#/foo/b/here"),
    ("{#list}", "#red,green,blue"),
    ("{#list*}", "#red,green,blue"),
    ("{#keys}", "#semi,;,dot,.,comma,,"),
    ("{#keys*}", "#semi=;,dot=.,comma=,"),
    # 3.2.5 label expansion with dot-prefix
    ("{.who}", ".fred"),
    ("{.who,who}", ".fred.fred"),
    ("{.half,who}", ".50%25.fred"),
    ("www{.dom*}", "www.example.com"),
    ("X{.var}", "X.value"),
    ("X{.empty}", "X."),
    ("X{.undef}", "X"),
    ("X{.var:3}", "X.val"),
    ("X{.list}", "X.red,green,blue"),
    ("X{.list*}", "X.red.green.blue"),
    ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
    ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
    ("X{.empty_keys}", "X"),
    ("X{.empty_keys*}", "X"),
    # 3.2.6 path segment expansion
    ("{/who}", "/fred"),
    ("{/who,who}", "/fred/fred"),
    ("{/half,who}", "/50%25/fred"),
    ("{/who,dub}", "/fred/me%2Ftoo"),
    ("{/var}", "/value"),
    ("{/var,empty}", "/value/"),
    ("{/var,undef}", "/value"),
    ("{/var,x}/here", "/value/1024/here"),
    ("{/var:1,var}", "/v/value"),
    ("{/list}", "/red,green,blue"),
    ("{/list*}", "/red/green/blue"),
    ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
    ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
    ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
    # 3.2.7 path-style parameter expansion
    ("{;who}", ";who=fred"),
    ("{;half}", ";half=50%25"),
    ("{;empty}", ";empty"),
    ("{;v,empty,who}", ";v=6;empty;who=fred"),
    ("{;v,bar,who}", ";v=6;who=fred"),
    ("{;x,y}", ";x=1024;y=768"),
    ("{;x,y,empty}", ";x=1024;y=768;empty"),
    ("{;x,y,undef}", ";x=1024;y=768"),
    ("{;hello:5}", ";hello=Hello"),
    ("{;list}", ";list=red,green,blue"),
    ("{;list*}", ";list=red;list=green;list=blue"),
    ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
    ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
    # 3.2.8 form-style query expansion
    ("{?who}", "?who=fred"),
    ("{?half}", "?half=50%25"),
    ("{?x,y}", "?x=1024&y=768"),
    ("{?x,y,empty}", "?x=1024&y=768&empty="),
    ("{?x,y,undef}", "?x=1024&y=768"),
    ("{?var:3}", "?var=val"),
    ("{?list}", "?list=red,green,blue"),
    ("{?list*}", "?list=red&list=green&list=blue"),
    ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
    ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
    # 3.2.9 form-style query continuation
    ("{&who}", "&who=fred"),
    ("{&half}", "&half=50%25"),
    ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
    ("{&x,y,empty}", "&x=1024&y=768&empty="),
    ("{&var:3}", "&var=val"),
    ("{&list}", "&list=red,green,blue"),
    ("{&list*}", "&list=red&list=green&list=blue"),
    ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
    ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
]


@pytest.mark.parametrize(("template", "expected"), RFC_EXAMPLES)
def test_rfc6570_examples(template: str, expected: str) -> None:
    assert UriTemplate(template).expand(RFC_VALUES) == expected


def test_level1_examples_from_section_1_2() -> None:
    values = {"var": "value", "hello": "Hello World!"}
    assert UriTemplate("{var}").expand(values) == "value"
    assert UriTemplate("{hello}").expand(values) == "Hello%20World%21"


def test_variables_in_order_without_duplicates() -> None:
    t = UriTemplate("https://h/{a}/{+b}{?c,a}{&d*}")
    assert t.variables == ("a", "b", "c", "d")
    assert UriTemplate("test://static").variables == ()


def test_unicode_values_are_utf8_percent_encoded() -> None:
    assert UriTemplate("{x}").expand({"x": "é"}) == "%C3%A9"
    assert UriTemplate("{x}").expand({"x": 5}) == "5"


@pytest.mark.parametrize(
    "template",
    ["{", "}", "a{b", "{}", "{=x}", "{x:0}", "{x:10000}", "{x*:3}", "{a b}", "{x:a}"],
)
def test_malformed_templates_are_usage_errors(template: str) -> None:
    with pytest.raises(UsageError):
        UriTemplate(template)


def test_prefix_on_a_list_is_an_error() -> None:
    with pytest.raises(UsageError, match="prefix"):
        UriTemplate("{list:3}").expand({"list": ["a"]})


# -- matching -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("test://template/{id}/data", "test://template/42/data", {"id": "42"}),
        ("test://template/{id}/data", "test://template/a%20b/data", {"id": "a b"}),
        ("users/{id}", "users/", None),
        ("users/{id}", "users/a/b", None),
        ("users/{id}", "users/a?x=1", None),
        ("users/{id}", "groups/a", None),
        ("file:///{+path}", "file:///a/b/c.txt", {"path": "a/b/c.txt"}),
        ("file:///{+path}", "file:///a/b%2Fc", {"path": "a/b/c"}),
        ("file:///{+path}.md", "file:///a/b.md", {"path": "a/b"}),
        ("{name}.txt", "my.file.txt", {"name": "my.file"}),
        ("repo/{owner}/{name}", "repo/o/n", {"owner": "o", "name": "n"}),
        ("items{?q,page}", "items", {}),
        ("items{?q,page}", "items?page=2&q=x%20y", {"page": "2", "q": "x y"}),
        ("items{?q,page}", "items?q=1&other=z", {"q": "1"}),
        ("items{?q}{&page}", "items?page=3&q=a", {"page": "3", "q": "a"}),
        ("items?fixed=1{&x}", "items?fixed=1&x=9", {"x": "9"}),
        ("tags{?tag*}", "tags?tag=a&tag=b", {"tag": ["a", "b"]}),
        ("f{/parts*}", "f/a/b/c", {"parts": ["a", "b", "c"]}),
        ("map{;lat,long}", "map;lat=1;long=2", {"lat": "1", "long": "2"}),
        ("doc{#section}", "doc#intro/part", {"section": "intro/part"}),
        ("www{.dom*}", "www.example.com", {"dom": ["example", "com"]}),
        ("file:///{+path}{?rev}", "file:///a/b?rev=3", {"path": "a/b", "rev": "3"}),
        ("{x,y}", "1024,768", {"x": "1024", "y": "768"}),
    ],
)
def test_match(template: str, uri: str, expected: dict[str, Any] | None) -> None:
    assert UriTemplate(template).match(uri) == expected


def test_match_roundtrips_expansion() -> None:
    t = UriTemplate("db://{table}/rows/{id}{?fields,limit}")
    values = {"table": "t 1", "id": "a/b", "fields": "x,y", "limit": "5"}
    assert t.match(t.expand(values)) == values


def test_adjacent_expressions_expand_but_refuse_to_match() -> None:
    t = UriTemplate("{a}{b}")
    assert t.expand({"a": "1", "b": "2"}) == "12"
    with pytest.raises(UsageError, match="no literal between"):
        t.match("12")
    assert UriTemplate("{a}{/b}").match("x/y") == {"a": "x", "b": "y"}


def test_overlong_uris_never_match() -> None:
    t = UriTemplate("x/{+rest}")
    assert t.match("x/" + "a" * MAX_MATCH_URI_LENGTH) is None
    assert t.match("x/" + "a" * 100) == {"rest": "a" * 100}


# -- safe_join ------------------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "sub" / "a.txt").write_text("a")
    (tmp_path / "secret.txt").write_text("s")
    return tmp_path / "docs"


def test_safe_join_allows_plain_relative_paths(root: Path) -> None:
    assert safe_join(root, "sub/a.txt") == (root / "sub" / "a.txt").resolve()
    assert safe_join(root, "sub/./a.txt") == (root / "sub" / "a.txt").resolve()
    assert safe_join(root, "new/file.txt") == (root / "new" / "file.txt").resolve()
    assert safe_join(str(root), "") == root.resolve()
    assert safe_join(root, "100%.txt") == (root / "100%.txt").resolve()


@pytest.mark.parametrize(
    ("relative", "reason"),
    [
        ("../secret.txt", "'..'"),
        ("sub/../../secret.txt", "'..'"),
        ("/etc/passwd", "relative"),
        ("C:/Windows", "relative"),
        ("sub\\..\\..\\secret.txt", "backslash"),
        ("a\x00b", "NUL"),
        ("%2e%2e/secret.txt", "'..'"),
        ("%252e%252e/secret.txt", "'..'"),
        ("..%2fsecret.txt", "'..'"),
        ("%2fetc/passwd", "relative"),
        ("a%00b", "NUL"),
    ],
)
def test_safe_join_refuses_traversal(root: Path, relative: str, reason: str) -> None:
    with pytest.raises(UnsafePathError, match=reason) as info:
        safe_join(root, relative)
    assert info.value.code == INVALID_PARAMS


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_safe_join_refuses_symlink_escape(root: Path) -> None:
    (root / "escape").symlink_to(root.parent / "secret.txt")
    (root / "inside").symlink_to(root / "sub" / "a.txt")
    with pytest.raises(UnsafePathError, match="outside"):
        safe_join(root, "escape")
    assert safe_join(root, "inside") == (root / "sub" / "a.txt").resolve()
