//! The tests of exposed tool names: assignment, collisions, templates and the name grammar.

use super::*;

fn default_template() -> NameTemplate {
    NameTemplate::new(DEFAULT_NAME_TEMPLATE, DEFAULT_MAX_NAME_LENGTH).unwrap()
}

/// Assigns and checks every output against `^[a-zA-Z0-9_-]{1,max_len}$`
/// and uniqueness per distinct pair.
fn assign_checked(template: &NameTemplate, pairs: &[(&str, &str)]) -> Vec<String> {
    let servers: Vec<ServerName> = pairs.iter().map(|&(s, _)| ServerName::from(s)).collect();
    let typed: Vec<(&ServerName, &str)> = servers
        .iter()
        .zip(pairs)
        .map(|(s, &(_, t))| (s, t))
        .collect();
    let names = template.assign(&typed);
    assert_eq!(names.len(), pairs.len());
    for name in &names {
        assert!(
            name.len() <= template.max_len()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                && name
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_'),
            "invalid name {name:?}"
        );
    }
    let mut by_name: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for (name, pair) in names.iter().zip(pairs) {
        if let Some(other) = by_name.insert(name, *pair) {
            assert_eq!(other, *pair, "{name:?} given to two pairs");
        }
    }
    names
}

#[test]
fn hash_matches_spec() {
    // printf 'github\0create_issue' | sha256sum
    assert_eq!(
        hash_hex("github", "create_issue"),
        "5b9912e694bb311f19e7ae135eeb21a45e827b0383d5541da680988adfe65495"
    );
}

#[test]
fn default_template_keeps_valid_names() {
    assert_eq!(NameTemplate::default(), default_template());
    let names = assign_checked(
        &default_template(),
        &[("github", "create_issue"), ("fs", "read-file"), ("s", "")],
    );
    assert_eq!(
        names,
        [
            "mcp__github__create_issue",
            "mcp__fs__read-file",
            "mcp__s__"
        ]
    );
}

#[test]
fn invalid_chars_are_sanitised_and_hashed() {
    let names = assign_checked(
        &default_template(),
        &[
            ("fs", "read.file"),
            ("web", "a/b"),
            ("i18n", "héllo"),
            ("sp", "two words"),
        ],
    );
    assert_eq!(
        names,
        [
            "mcp__fs__read_file_a70c2700".to_string(),
            format!("mcp__web__a_b_{}", &hash_hex("web", "a/b")[..8]),
            format!("mcp__i18n__h_llo_{}", &hash_hex("i18n", "héllo")[..8]),
            format!("mcp__sp__two_words_{}", &hash_hex("sp", "two words")[..8]),
        ]
    );
}

#[test]
fn long_names_are_truncated_with_hash() {
    let tool = "x".repeat(100);
    let names = assign_checked(&default_template(), &[("srv", &tool)]);
    let expected = format!(
        "mcp__srv__{}_{}",
        "x".repeat(45),
        &hash_hex("srv", &tool)[..8]
    );
    assert_eq!(expected.len(), 64);
    assert_eq!(names, [expected]);

    // Exactly max_len is still plain; one more is hashed.
    let fits = "y".repeat(64 - "mcp__s__".len());
    let over = "y".repeat(65 - "mcp__s__".len());
    let names = assign_checked(&default_template(), &[("s", &fits), ("s", &over)]);
    assert_eq!(names[0], format!("mcp__s__{fits}"));
    assert_eq!(
        names[1],
        format!("mcp__s__{}_{}", "y".repeat(47), &hash_hex("s", &over)[..8])
    );
}

#[test]
fn colliding_group_is_hashed_entirely() {
    let names = assign_checked(
        &default_template(),
        &[("a__b", "c"), ("a", "b__c"), ("a", "d")],
    );
    assert_eq!(
        names,
        [
            "mcp__a__b__c_a92700ce",
            "mcp__a__b__c_01b8a75b",
            "mcp__a__d"
        ]
    );
    assert_ne!(names[0], names[1]);
}

#[test]
fn plain_name_colliding_with_hashed_name_is_hashed_too() {
    let dotted = ("x", "y.z");
    assert_eq!(
        assign_checked(&default_template(), &[dotted]),
        ["mcp__x__y_z_0d708916"]
    );
    // A valid tool name that renders to exactly that hashed name.
    let lookalike = ("x", "y_z_0d708916");
    let names = assign_checked(&default_template(), &[dotted, lookalike]);
    // The plain member moves to the hashed form; the already-hashed one keeps it.
    assert_eq!(
        names,
        [
            "mcp__x__y_z_0d708916".to_string(),
            format!(
                "mcp__x__y_z_0d708916_{}",
                &hash_hex("x", "y_z_0d708916")[..8]
            ),
        ]
    );
}

#[test]
fn template_without_server_hashes_shared_tool_names() {
    let template = NameTemplate::new("{tool}", 64).unwrap();
    let names = assign_checked(
        &template,
        &[("one", "search"), ("two", "search"), ("one", "fetch")],
    );
    assert_eq!(
        names,
        [
            format!("search_{}", &hash_hex("one", "search")[..8]),
            format!("search_{}", &hash_hex("two", "search")[..8]),
            "fetch".to_string(),
        ]
    );
    // An empty rendering is invalid and becomes just the hash suffix.
    assert_eq!(
        assign_checked(&template, &[("s", "")]),
        [format!("_{}", &hash_hex("s", "")[..8])]
    );
}

#[test]
fn leading_digit_or_dash_gets_an_underscore() {
    let template = NameTemplate::new("{tool}", 64).unwrap();
    let names = assign_checked(
        &template,
        &[("s", "1password"), ("s", "-x"), ("s", "ok"), ("s", "9.x")],
    );
    assert_eq!(
        names,
        [
            "_1password".to_string(),
            "_-x".to_string(),
            "ok".to_string(),
            format!("_9_x_{}", &hash_hex("s", "9.x")[..8]),
        ]
    );
    // A tool literally named `_1password` collides with the prefixed one:
    // both are hashed, whatever the order.
    let names = assign_checked(&template, &[("s", "_1password"), ("s", "1password")]);
    assert_eq!(
        names,
        [
            format!("_1password_{}", &hash_hex("s", "_1password")[..8]),
            format!("_1password_{}", &hash_hex("s", "1password")[..8]),
        ]
    );
    assert!(!template.is_valid_name("1abc"));
    assert!(!template.is_valid_name(""));
    assert!(template.is_valid_name("_1abc"));
}

#[test]
fn duplicate_pairs_share_a_name_without_hashing() {
    let names = assign_checked(&default_template(), &[("s", "t"), ("s", "t"), ("s", "u")]);
    assert_eq!(names, ["mcp__s__t", "mcp__s__t", "mcp__s__u"]);
}

#[test]
fn pairs_whose_hash_input_coincides_are_kept_apart_by_the_server_prefix() {
    // Same bytes for sha256(server + "\0" + tool), and the same sanitised rendering of the raw
    // names ("a_b_c"): once the last resort's numbered suffix. A server name with a NUL is not
    // plain, so its prefix carries a hash of the name alone and the two renderings differ.
    let template = NameTemplate::new("{server}_{tool}", 64).unwrap();
    let pairs = [("a\0b", "c"), ("a", "b\0c")];
    assert_eq!(hash_hex("a", "b\0c"), hash_hex("a\0b", "c"));
    let names = assign_checked(&template, &pairs);
    assert_ne!(names[0], names[1]);
    assert!(names.iter().all(|n| !n.ends_with("_2")), "{names:?}");
    let mut reversed = pairs;
    reversed.reverse();
    let again = assign_checked(&template, &reversed);
    assert_eq!(again, [names[1].clone(), names[0].clone()]);
    let tight = NameTemplate::new("{server}_{tool}", MIN_MAX_NAME_LENGTH).unwrap();
    let tight_names = assign_checked(&tight, &pairs);
    assert_ne!(tight_names[0], tight_names[1]);
}

#[test]
fn max_len_edges() {
    let tight = NameTemplate::new(DEFAULT_NAME_TEMPLATE, MIN_MAX_NAME_LENGTH).unwrap();
    let names = assign_checked(
        &tight,
        &[("srv", "tool"), ("server", "tool"), ("srv", "tool333")],
    );
    assert_eq!(
        names,
        [
            "mcp__srv__tool".to_string(),
            "mcp__se_dfbe818f".to_string(),
            format!("mcp__sr_{}", &hash_hex("srv", "tool333")[..8]),
        ]
    );
    // 16 chars exactly is still plain.
    assert_eq!(
        assign_checked(&tight, &[("srv", "tool2")]),
        ["mcp__srv__tool2"]
    );
    assert_eq!(names[1].len(), 16);

    let wide = NameTemplate::new(DEFAULT_NAME_TEMPLATE, MAX_MAX_NAME_LENGTH).unwrap();
    let tool = "t".repeat(300);
    let names = assign_checked(&wide, &[("s", &tool)]);
    assert_eq!(names[0].len(), 256);
    assert!(names[0].ends_with(&format!("_{}", &hash_hex("s", &tool)[..8])));

    assert_eq!(
        NameTemplate::new(DEFAULT_NAME_TEMPLATE, 15).map_err(|e| (e.to_string(), e.field())),
        Err((
            "max name length 15 is out of range; expected 16..=256".to_string(),
            "maxNameLength"
        ))
    );
    assert!(NameTemplate::new(DEFAULT_NAME_TEMPLATE, 257).is_err());
    assert!(NameTemplate::new(DEFAULT_NAME_TEMPLATE, 0).is_err());
}

#[test]
fn template_errors() {
    let err = |t: &str| {
        let e = NameTemplate::new(t, 64).unwrap_err();
        assert_eq!(e.field(), "nameTemplate");
        e.to_string()
    };
    assert_eq!(
        err("mcp__{server}"),
        r#"name template "mcp__{server}" must contain {tool}"#
    );
    assert_eq!(err(""), r#"name template "" must contain {tool}"#);
    assert_eq!(
        err("{tool}{bogus}"),
        r#"name template "{tool}{bogus}" has unknown placeholder {bogus}; expected {server} or {tool}"#
    );
    assert_eq!(
        err("{Tool}"),
        r#"name template "{Tool}" has unknown placeholder {Tool}; expected {server} or {tool}"#
    );
    assert_eq!(
        err("x_{tool"),
        r#"name template "x_{tool" has an unterminated '{'"#
    );
    assert_eq!(
        err("x}{tool}"),
        r#"name template "x}{tool}" has a '}' without a matching '{'"#
    );
    assert_eq!(
        err("{server}.{tool}"),
        r#"name template "{server}.{tool}" has character '.' outside [A-Za-z0-9_-]"#
    );
    assert!(NameTemplate::new("{tool}__{tool}", 64).is_ok());
    assert_eq!(
        NameTemplate::new("t-{tool}", 64).unwrap().template(),
        "t-{tool}"
    );
}

#[test]
fn names_depend_only_on_the_set_of_pairs() {
    let long = "z".repeat(80);
    let lookalike = format!("y_z_{}", &hash_hex("x", "y.z")[..8]);
    let pairs: Vec<(&str, &str)> = vec![
        ("a__b", "c"),
        ("a", "b__c"),
        ("x", "y.z"),
        ("x", lookalike.as_str()),
        ("srv", long.as_str()),
        ("ünï", "cødé"),
        ("a", "d"),
    ];
    let template = default_template();
    let reference: BTreeMap<(&str, &str), String> = pairs
        .iter()
        .copied()
        .zip(assign_checked(&template, &pairs))
        .collect();
    let mut permutation = pairs.clone();
    for_each_permutation(&mut permutation, 0, &mut |perm| {
        let names = assign_checked(&template, perm);
        for (pair, name) in perm.iter().zip(&names) {
            assert_eq!(reference.get(pair), Some(name));
        }
        // With a duplicate thrown in the answer is the same too.
        let mut with_dup = perm.to_vec();
        with_dup.push(perm[0]);
        let names = assign_checked(&template, &with_dup);
        for (pair, name) in with_dup.iter().zip(&names) {
            assert_eq!(reference.get(pair), Some(name));
        }
    });
}

type Pair<'a> = (&'a str, &'a str);

fn for_each_permutation<'a>(
    items: &mut [Pair<'a>],
    start: usize,
    visit: &mut dyn FnMut(&[Pair<'a>]),
) {
    if start == items.len() {
        visit(items);
        return;
    }
    for i in start..items.len() {
        items.swap(start, i);
        for_each_permutation(items, start + 1, visit);
        items.swap(start, i);
    }
}

#[test]
fn a_name_may_belong_to_a_server_before_its_tools_are_known() {
    let t = default_template();
    assert!(t.may_name(&ServerName::from("alpha"), "mcp__alpha__echo"));
    assert!(!t.may_name(&ServerName::from("alpha"), "mcp__beta__echo"));
    assert!(!t.may_name(&ServerName::from("alp"), "mcp__alpha__echo"));
    // Every name the template gives the server's tools passes, hashed and cut ones included.
    let long = "s".repeat(70);
    for (server, tool) in [
        ("alpha", "create.issue"),
        ("my.server", "x"),
        (long.as_str(), "t"),
    ] {
        let name = &assign_checked(&t, &[(server, tool)])[0];
        assert!(
            t.may_name(&ServerName::from(server), name),
            "{server} {name}"
        );
    }
    // Without `{server}` before `{tool}` the name cannot tell: any server may own it.
    let bare = NameTemplate::new("{tool}", 64).unwrap();
    assert!(bare.may_name(&ServerName::from("alpha"), "echo"));
    let after = NameTemplate::new("{tool}_{server}", 64).unwrap();
    assert!(after.may_name(&ServerName::from("alpha"), "echo_beta"));
}
