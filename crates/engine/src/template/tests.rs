use std::borrow::Cow;
use std::collections::HashMap;

use super::render::MATCHES_PER_CHECK;
use super::*;
use crate::ics::Fields;
use crate::interrupt::{Interrupt, Interrupted};

fn fields(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn render(src: &str, pairs: &[(&str, &str)]) -> String {
    Template::compile(src)
        .expect("compiles")
        .render(&fields(pairs))
}

#[test]
fn plain_tokens_substitute_and_unknown_names_render_empty() {
    assert_eq!(
        render(
            "${SUMMARY} @ ${LOCATION}",
            &[("SUMMARY", "Tea"), ("LOCATION", "Home")]
        ),
        "Tea @ Home"
    );
    assert_eq!(render("[${NOPE}]", &[]), "[]");
}

#[test]
fn names_are_case_insensitive() {
    assert_eq!(render("${summary}", &[("SUMMARY", "x")]), "x");
}

#[test]
fn rendered_field_is_trimmed() {
    assert_eq!(render("  ${A}  ", &[("A", " v \n")]), "v");
    assert_eq!(render("${NOPE} @ ${NOPE}", &[]), "@");
}

#[test]
fn dollar_without_brace_and_unterminated_tokens_are_literal() {
    assert_eq!(render("costs $5", &[]), "costs $5");
    assert_eq!(render("a ${SUMMARY", &[("SUMMARY", "x")]), "a ${SUMMARY");
    assert_eq!(render("${} ${ A}", &[]), "${} ${ A}");
    assert_eq!(render("${A|re:s/x/y/", &[("A", "x")]), "${A|re:s/x/y/");
}

#[test]
fn regex_replaces_first_match_without_g_and_all_with_g() {
    assert_eq!(render("${A|re:s/o/0/}", &[("A", "foo")]), "f0o");
    assert_eq!(render("${A|re:s/o/0/g}", &[("A", "foo")]), "f00");
}

#[test]
fn flags_i_m_s_u_change_matching() {
    assert_eq!(render("${A|re:s/FOO/x/i}", &[("A", "foo")]), "x");
    assert_eq!(render("${A|re:s/^b/x/m}", &[("A", "a\nb")]), "a\nx");
    assert_eq!(render("${A|re:s/a.b/x/s}", &[("A", "a\nb")]), "x");
    assert_eq!(render("${A|re:s/a.+/x/U}", &[("A", "abc")]), "xc");
}

#[test]
fn replacement_supports_groups_whole_match_newline_and_tab() {
    assert_eq!(
        render(r"${A|re:s/(\w+) (\w+)/$2 $1/}", &[("A", "hello world")]),
        "world hello"
    );
    assert_eq!(render("${A|re:s/b/[$&]/}", &[("A", "abc")]), "a[b]c");
    assert_eq!(render(r"${A|re:s/,/\n/g}", &[("A", "a,b")]), "a\nb");
    assert_eq!(render(r"${A|re:s/,/\t/g}", &[("A", "a,b")]), "a\tb");
    assert_eq!(render("${A|re:s/(a)/$5/}", &[("A", "a")]), "");
    assert_eq!(render("${A|re:s/a/$$1/}", &[("A", "a")]), "$1");
}

#[test]
fn escaped_slash_backslash_and_brace_inside_the_token() {
    assert_eq!(render(r"${A|re:s/\//-/g}", &[("A", "a/b/c")]), "a-b-c");
    assert_eq!(render(r"${A|re:s/x/\}/}", &[("A", "x")]), "}");
    assert_eq!(render(r"${A|re:s/\\\\/|/}", &[("A", r"a\b")]), "a|b");
    assert_eq!(render(r"${A|re:s/\d+/#/g}", &[("A", "a1b22")]), "a#b#");
}

#[test]
fn counted_repetitions_need_no_escaping() {
    assert_eq!(
        render(
            r"${DTSTART|re:s/T\d{6}//}",
            &[("DTSTART", "20240105T100000")]
        ),
        "20240105"
    );
    assert_eq!(render(r"${A|re:s/a{2,}/x/}", &[("A", "baaab")]), "bxb");
    assert_eq!(render(r"${A|re:s/a{1,2}/x/g}", &[("A", "aaa")]), "xx");
    // `\}` still escapes, and a lone `{` in the replacement does not hide the closing brace.
    assert_eq!(render(r"${A|re:s/b/\}{/} end", &[("A", "abc")]), "a}{c end");
    assert_eq!(render(r"${A|re:s/b/{2}/}", &[("A", "abc")]), "a{2}c");
    // Unbalanced: the first `}` closes the token, as before.
    let (_, errors) = Template::compile_lenient(r"${A|re:s/a{2/x/}");
    assert_eq!(errors.len(), 1, "{errors:?}");
}

#[test]
fn empty_pattern_means_no_transform() {
    assert_eq!(render("${A|re:s///g}", &[("A", "v")]), "v");
}

#[test]
fn invalid_pattern_is_a_compile_error_with_position_and_leaves_the_value_unchanged() {
    let src = "x ${A|re:s/(unclosed/y/}";
    let err = Template::compile(src).expect_err("invalid");
    assert_eq!(err.position, 11);
    assert!(err.message.contains("unclosed"), "{}", err.message);
    let (t, errors) = Template::compile_lenient(src);
    assert_eq!(errors.len(), 1);
    assert_eq!(t.render(&fields(&[("A", "value")])), "x value");
}

#[test]
fn unknown_flag_and_missing_slash_are_errors() {
    let err = Template::compile("${A|re:s/a/b/gq}").expect_err("bad flag");
    assert_eq!(err.position, 14);
    assert!(Template::compile("${A|re:s/a/b}").is_err());
    assert!(Template::compile("${A|upper}").is_err());
    let (t, _) = Template::compile_lenient("${A|upper}");
    assert_eq!(t.render(&fields(&[("A", "v")])), "v");
}

#[test]
fn error_positions_count_characters_not_bytes() {
    let err = Template::compile("été ${A|re:s/(/x/}").expect_err("invalid");
    assert_eq!(err.position, 13);
}

#[test]
fn oversized_patterns_are_refused() {
    let src = r"${A|re:s/(\w{1000\}){1000\}/x/}";
    let err = Template::compile(src).expect_err("too big");
    assert!(err.message.contains("too large"), "{}", err.message);
}

#[test]
fn rendered_output_is_capped() {
    let big = "a".repeat(100_000);
    let out = render(
        "${A|re:s/a/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/g}",
        &[("A", &big)],
    );
    assert!(out.len() <= MAX_RENDERED_BYTES);
}

#[test]
fn identity_is_only_the_own_plain_token() {
    assert!(Template::compile("${SUMMARY}")
        .expect("ok")
        .is_identity("SUMMARY"));
    assert!(Template::compile(" ${summary} ")
        .expect("ok")
        .is_identity("SUMMARY"));
    assert!(!Template::compile("${SUMMARY}!")
        .expect("ok")
        .is_identity("SUMMARY"));
    assert!(!Template::compile("${LOCATION}")
        .expect("ok")
        .is_identity("SUMMARY"));
    assert!(!Template::compile("${SUMMARY|re:s/a/b/}")
        .expect("ok")
        .is_identity("SUMMARY"));
}

#[test]
fn a_mapping_holds_a_bounded_number_of_regexes() {
    let token = r"${A|re:s/x/y/g}";
    let src = token.repeat(MAX_REGEX_TRANSFORMS + 5);
    let (template, errors) = Template::compile_lenient(&src);
    assert_eq!(errors.len(), 5, "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains(&MAX_REGEX_TRANSFORMS.to_string()),
        "{}",
        errors[0].message
    );
    // The tokens past the limit render their plain value.
    let out = template.render(&fields(&[("A", "x")]));
    assert_eq!(out, "y".repeat(MAX_REGEX_TRANSFORMS) + &"x".repeat(5));
}

#[test]
fn the_regex_budget_is_shared_by_a_mappings_templates() {
    // Each pattern (Unicode \w, about 1.1 MB compiled) is under the per-pattern limit;
    // together they are over the budget.
    let token = r"${A|re:s/\w{20\}/x/g}";
    let src = token.repeat(8);
    let (_, errors) = Template::compile_lenient(&src);
    assert!(!errors.is_empty(), "the budget was never reached");
    assert!(
        errors.iter().all(|e| e.message.contains("together")),
        "{errors:?}"
    );
    let mut budget = RegexBudget::default();
    let (_, first) = Template::compile_within(token, &mut budget);
    assert!(first.is_empty(), "{first:?}");
}

/// An event that counts the fields read and stops `interrupt` at the first read, as a budget
/// that runs out while the first token is being rendered.
struct StopOnRead {
    reads: std::cell::Cell<usize>,
    interrupt: Interrupt,
    value: String,
}

impl StopOnRead {
    fn new(value: String) -> StopOnRead {
        StopOnRead {
            reads: std::cell::Cell::new(0),
            interrupt: Interrupt::new(),
            value,
        }
    }
}

impl Fields for StopOnRead {
    fn field(&self, _name: &str) -> Option<Cow<'_, str>> {
        self.reads.set(self.reads.get() + 1);
        self.interrupt.stop();
        Some(Cow::Borrowed(&self.value))
    }
}

#[test]
fn a_stop_while_rendering_skips_every_token_left() {
    let template =
        Template::compile(&"${DESCRIPTION|re:s/[\\s\\S]//g}".repeat(32)).expect("compiles");
    let event = StopOnRead::new("some words".to_owned());
    assert_eq!(
        template.render_checked(&event, &event.interrupt),
        Err(Interrupted)
    );
    assert_eq!(event.reads.get(), 1);
    // Without a budget the same template reads every token's value, as it always did.
    let event = StopOnRead::new("some words".to_owned());
    assert_eq!(template.render(&event), "");
    assert_eq!(event.reads.get(), 32);
}

#[test]
fn a_stop_inside_one_huge_token_ends_it() {
    // The check before the token passes (nothing is stopped until the value is read): only
    // the transform's own checks can end it.
    let template = Template::compile("${A|re:s/x/y/g}").expect("compiles");
    let event = StopOnRead::new("x".repeat(100_000));
    assert_eq!(
        template.render_checked(&event, &event.interrupt),
        Err(Interrupted)
    );
}

#[test]
fn a_stopped_transform_quits_within_a_few_hundred_matches() {
    let value = "x".repeat(100_000);
    let stopped = Interrupt::new();
    stopped.stop();
    // Plain matching and capturing (a `$1` in the replacement) take different loops.
    for src in ["${A|re:s/x/yy/g}", "${A|re:s/(x)/$1$1/g}"] {
        let template = Template::compile(src).expect("compiles");
        let Some(Part::Token {
            transform: Some(t), ..
        }) = template.parts.first()
        else {
            panic!("{src}: no transform");
        };
        let mut out = String::new();
        assert_eq!(t.apply(&value, &mut out, Some(&stopped)), Err(Interrupted));
        assert!(out.len() <= 2 * MATCHES_PER_CHECK, "{src}: {}", out.len());
        let mut whole = String::new();
        assert_eq!(t.apply(&value, &mut whole, Some(&Interrupt::new())), Ok(()));
        assert_eq!(whole.len(), 2 * value.len(), "{src}");
    }
}

#[test]
fn render_checked_with_a_running_budget_gives_what_render_gives() {
    let template = Template::compile("${A|re:s/(\\w+)/<$1>/g} ${B}").expect("compiles");
    let event = fields(&[("A", "one two"), ("B", "three")]);
    assert_eq!(
        template.render_checked(&event, &Interrupt::new()),
        Ok(template.render(&event))
    );
    assert_eq!(template.render(&event), "<one> <two> three");
}
