//! A BM25 index over tool documents, built once per tool set and searched many times.
//!
//! Scoring is BM25F (Robertson et al.), the variant of Okapi BM25 for documents with fields: each
//! field's term counts are weighted ([`NAME_WEIGHT`] for the tool's name, [`TITLE_WEIGHT`] for its
//! title, 1 for its server's name, its description and its parameter names) and summed before the
//! usual saturation (`k1` = 1.2) and length normalisation (`b` = 0.75).
//!
//! Exact names never depend on ranking: a query that is (or contains, as one whitespace-separated
//! word) a tool's exposed name or its name on its server, compared case-insensitively, puts that
//! tool first with a score above every BM25 score. (A leading host's BM25-only search is known to
//! miss tools asked for by their exact name: a name like `create_tree_7` splits into common words.)

use std::collections::HashMap;

use super::terms::terms;

/// Weight of the tool's own name (the name a model is most likely to ask for).
pub(crate) const NAME_WEIGHT: f64 = 3.0;
/// Weight of the tool's title.
pub(crate) const TITLE_WEIGHT: f64 = 2.0;
/// Weight of the server's name, the description and the parameter names.
pub(crate) const TEXT_WEIGHT: f64 = 1.0;
/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;

/// What is searched of one tool.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Document<'a> {
    /// The exposed name (`mcp__github__create_issue`).
    pub name: &'a str,
    /// The tool's name on its server (`create_issue`).
    pub tool: &'a str,
    pub server: &'a str,
    pub title: Option<&'a str>,
    pub description: Option<&'a str>,
    /// The names of the top-level parameters.
    pub parameters: &'a [String],
}

/// One match: the document's position in the list the index was built from, and its score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Hit {
    pub doc: usize,
    pub score: f64,
    /// Found by its exact name (ranked before every other match).
    pub exact: bool,
}

/// The index of one tool set.
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// Weighted length of each document.
    lengths: Vec<f64>,
    average_length: f64,
    /// Term → (document, weighted count of the term in it).
    postings: HashMap<String, Vec<(usize, f64)>>,
    /// Lowercased exposed name or tool name → documents.
    names: HashMap<String, Vec<usize>>,
}

impl Index {
    pub(crate) fn build(documents: &[Document<'_>]) -> Index {
        let mut index = Index::default();
        for (doc, d) in documents.iter().enumerate() {
            let mut counts: HashMap<String, f64> = HashMap::new();
            let mut length = 0.0;
            let params = d.parameters.join(" ");
            let fields = [
                (Some(d.tool), NAME_WEIGHT),
                (d.title, TITLE_WEIGHT),
                (Some(d.server), TEXT_WEIGHT),
                (d.description, TEXT_WEIGHT),
                (Some(params.as_str()), TEXT_WEIGHT),
            ];
            for (text, weight) in fields {
                for term in text.map(terms).unwrap_or_default() {
                    *counts.entry(term).or_default() += weight;
                    length += weight;
                }
            }
            for (term, count) in counts {
                index.postings.entry(term).or_default().push((doc, count));
            }
            index.lengths.push(length);
            for name in [d.name, d.tool] {
                let slot = index.names.entry(name.to_lowercase()).or_default();
                if !slot.contains(&doc) {
                    slot.push(doc);
                }
            }
        }
        let total: f64 = index.lengths.iter().sum();
        index.average_length = total / (index.lengths.len().max(1) as f64);
        index
    }

    /// The best `limit` matches of `query` among the documents `accept` lets through, best first
    /// (ties in document order), and how many matched in all.
    pub(crate) fn search(
        &self,
        query: &str,
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> (Vec<Hit>, usize) {
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for term in terms(query) {
            let Some(postings) = self.postings.get(&term) else {
                continue;
            };
            let idf = self.idf(postings.len());
            for &(doc, count) in postings {
                let norm =
                    1.0 - B + B * self.lengths[doc] / self.average_length.max(f64::MIN_POSITIVE);
                *scores.entry(doc).or_default() += idf * count * (K1 + 1.0) / (count + K1 * norm);
            }
        }
        let best = scores.values().copied().fold(0.0, f64::max);
        let mut hits: Vec<Hit> = scores
            .iter()
            .filter(|(doc, score)| **score > 0.0 && accept(**doc))
            .map(|(&doc, &score)| Hit {
                doc,
                score,
                exact: false,
            })
            .collect();
        for doc in self.exact_names(query) {
            if !accept(doc) {
                continue;
            }
            let own = scores.get(&doc).copied().unwrap_or(0.0);
            let exact = Hit {
                doc,
                score: best + 1.0 + own,
                exact: true,
            };
            match hits.iter_mut().find(|h| h.doc == doc) {
                Some(hit) => *hit = exact,
                None => hits.push(exact),
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        let total = hits.len();
        hits.truncate(limit);
        (hits, total)
    }

    /// Documents named exactly by the whole query or by one of its whitespace-separated words.
    fn exact_names(&self, query: &str) -> Vec<usize> {
        let query = query.trim();
        let mut out = Vec::new();
        for word in std::iter::once(query).chain(query.split_whitespace()) {
            for &doc in self.names.get(&word.to_lowercase()).into_iter().flatten() {
                if !out.contains(&doc) {
                    out.push(doc);
                }
            }
        }
        out
    }

    /// BM25's inverse document frequency (always positive).
    fn idf(&self, containing: usize) -> f64 {
        let n = self.lengths.len() as f64;
        let df = containing as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(
        name: &'a str,
        tool: &'a str,
        description: &'a str,
        parameters: &'a [String],
    ) -> Document<'a> {
        Document {
            name,
            tool,
            server: "srv",
            title: None,
            description: Some(description),
            parameters,
        }
    }

    fn names(index: &Index, docs: &[Document<'_>], query: &str) -> Vec<String> {
        index
            .search(query, 10, |_| true)
            .0
            .iter()
            .map(|h| docs[h.doc].name.to_owned())
            .collect()
    }

    #[test]
    fn ranks_by_name_then_description_and_finds_exact_names_first() {
        let none: Vec<String> = Vec::new();
        let repo = vec!["owner".to_owned(), "repo".to_owned()];
        let docs = [
            doc(
                "mcp__srv__create_issue",
                "create_issue",
                "Create an issue in a repository.",
                &repo,
            ),
            doc(
                "mcp__srv__list_issues",
                "list_issues",
                "List the issues of a repository.",
                &repo,
            ),
            doc(
                "mcp__srv__create_tree",
                "create_tree",
                "Create a tree of issue files.",
                &none,
            ),
            doc(
                "mcp__srv__create_tree_7",
                "create_tree_7",
                "Create a tree of issue files.",
                &none,
            ),
            doc("mcp__srv__fetch", "fetch", "Fetch a URL.", &none),
        ];
        let index = Index::build(&docs);
        assert_eq!(index.lengths.len(), 5);
        assert_eq!(
            names(&index, &docs, "create issue")[0],
            "mcp__srv__create_issue"
        );
        assert_eq!(
            names(&index, &docs, "list issues")[0],
            "mcp__srv__list_issues"
        );
        assert_eq!(
            names(&index, &docs, "owner")[..2],
            ["mcp__srv__create_issue", "mcp__srv__list_issues"]
        );
        // Exact names: the exposed one, the server's one, any case, inside a sentence.
        for query in [
            "create_tree_7",
            "mcp__srv__create_tree_7",
            "CREATE_TREE_7",
            "please run create_tree_7 now",
        ] {
            let (hits, _) = index.search(query, 10, |_| true);
            assert_eq!(docs[hits[0].doc].name, "mcp__srv__create_tree_7", "{query}");
            assert!(hits[0].exact && !hits[1].exact, "{query}");
            assert!(hits[0].score > hits[1].score);
        }
        assert_eq!(names(&index, &docs, "fetch")[0], "mcp__srv__fetch");
        assert!(names(&index, &docs, "zebra").is_empty());
        assert!(names(&index, &docs, "").is_empty());
    }

    #[test]
    fn filters_limits_and_counts() {
        let none: Vec<String> = Vec::new();
        let docs: Vec<Document<'_>> = ["a", "b", "c", "d"]
            .iter()
            .map(|n| doc(n, n, "same words here", &none))
            .collect();
        let index = Index::build(&docs);
        let (hits, total) = index.search("words", 2, |doc| doc != 0);
        assert_eq!(total, 3);
        assert_eq!(hits.iter().map(|h| h.doc).collect::<Vec<_>>(), [1, 2]);
        // An exact name the filter refuses is not found.
        assert!(index
            .search("a", 10, |doc| doc != 0)
            .0
            .iter()
            .all(|h| h.doc != 0));
        assert!(Index::build(&[]).search("x", 5, |_| true).0.is_empty());
    }
}
