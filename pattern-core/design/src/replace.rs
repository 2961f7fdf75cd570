//! Rewriting one sub-term of a term, anywhere: the replacement at a path and
//! every single rewrite a rule allows. Without recursion, since a term built
//! in code may be any number of levels deep.

use crate::term::Term;

impl Term {
    /// This term with the sub-term at `path` (child indices from the root,
    /// in the order of [`Term::children`]) replaced by `replacement`;
    /// `None` if the path leads nowhere. The ancestors are rebuilt from the
    /// bottom up, the rest is cloned.
    ///
    /// ```
    /// use pattern_design::parse::parse;
    ///
    /// let t = parse("a = 1; b = 2; c = 3; pipe(a, seq(b, c))")?.term;
    /// let pool = parse("b = 2; tpool[2](b)")?.term;
    /// let u = t.replace_at(&[1, 0], pool).unwrap();
    /// assert_eq!(u.to_string(), "pipe(a, seq(tpool[2](b), c))");
    /// assert!(t.replace_at(&[0, 0], u.clone()).is_none());
    /// # Ok::<(), pattern_design::DesignError>(())
    /// ```
    pub fn replace_at(&self, path: &[usize], replacement: Term) -> Option<Term> {
        let mut ancestors = Vec::with_capacity(path.len());
        let mut node = self;
        for &i in path {
            ancestors.push(node);
            node = node.children().get(i).copied()?;
        }
        let mut rebuilt = replacement;
        for (&ancestor, &i) in ancestors.iter().zip(path).rev() {
            // The siblings are cloned; the child on the path is rebuilt.
            let mut slot = Some(rebuilt);
            let parts: Vec<Term> = (ancestor.children().into_iter().enumerate())
                .map(|(k, c)| match slot.take_if(|_| k == i) {
                    Some(r) => r,
                    None => c.clone(),
                })
                .collect();
            rebuilt = ancestor.with_parts(parts);
        }
        Some(rebuilt)
    }

    /// Every term one rewrite away: for each sub-term in pre-order (as
    /// [`Term::preorder`]) where `rule` gives a replacement, this term with
    /// that one sub-term replaced. Time: the walk is linear in the size,
    /// each result costs its own size.
    ///
    /// ```
    /// use pattern_design::Term;
    /// use pattern_design::parse::parse;
    ///
    /// let t = parse("a = 1; b = 2; c = 3; seq(a, seq(b, c))")?.term;
    /// // seq(x, y) → pipe(x, y), at each of the two places it matches.
    /// let found = t.rewrites(|s| match s {
    ///     Term::Seq(x, y) => Some(Term::Pipe(x.clone(), y.clone())),
    ///     _ => None,
    /// });
    /// let texts: Vec<String> = found.iter().map(Term::to_string).collect();
    /// assert_eq!(texts, ["pipe(a, seq(b, c))", "seq(a, pipe(b, c))"]);
    /// # Ok::<(), pattern_design::DesignError>(())
    /// ```
    pub fn rewrites(&self, mut rule: impl FnMut(&Term) -> Option<Term>) -> Vec<Term> {
        // Each visited node with its parent's index and its place among
        // the parent's children: a path is read back only on a match.
        let mut visited: Vec<(usize, usize)> = Vec::new();
        let mut stack: Vec<(&Term, usize, usize)> = vec![(self, usize::MAX, 0)];
        let mut out = Vec::new();
        while let Some((node, parent, place)) = stack.pop() {
            let index = visited.len();
            visited.push((parent, place));
            if let Some(replacement) = rule(node) {
                let mut path = Vec::new();
                let mut at = index;
                while visited[at].0 != usize::MAX {
                    path.push(visited[at].1);
                    at = visited[at].0;
                }
                path.reverse();
                out.extend(self.replace_at(&path, replacement));
            }
            for (i, child) in node.children().into_iter().enumerate().rev() {
                stack.push((child, index, i));
            }
        }
        out
    }
}
