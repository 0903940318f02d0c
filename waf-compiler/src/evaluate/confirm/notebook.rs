//! Notebooks store code. Jupyter's contents API (JupyterLab, JupyterHub, Binder), Colab, Kaggle and VS Code save
//! a notebook as one nbformat JSON document (`PUT /api/contents/<path>.ipynb`): its cells, each a `source` of
//! Python, R, Julia or Markdown the author typed, and the `outputs` the kernel printed. The server writes the
//! document to a file; it runs a cell only when the kernel is asked to, over its own channel. A cell's code is
//! the document's content, as a forum post's snippet is: SQL and shell commands in it are data to the server that
//! stores it, and only markup that would run where the notebook is shown counts (a Markdown cell's HTML).

/// Whether the JSON member `name` (`json.content.cells.3.source`) is a notebook cell's source or one of its
/// outputs: a `source` or `outputs` member of a numbered element of `cells`, or inside one (nbformat may write a
/// source as a list of lines, `cells.3.source.0`).
pub fn is_cell_content(name: &[u8]) -> bool {
    let Some(path) = name.strip_prefix(b"json.") else {
        return false;
    };
    let parts: Vec<&[u8]> = path.split(|&b| b == b'.').collect();
    parts.windows(3).any(|w| {
        w[0] == b"cells"
            && !w[1].is_empty()
            && w[1].iter().all(u8::is_ascii_digit)
            && matches!(w[2], b"source" | b"outputs")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cells_source_and_outputs_are_its_content() {
        assert!(is_cell_content(b"json.content.cells.3.source"));
        assert!(is_cell_content(b"json.cells.0.source.2"));
        assert!(is_cell_content(b"json.content.cells.1.outputs.0.text"));
        assert!(!is_cell_content(b"json.content.cells.3.metadata.tags.0"));
        assert!(!is_cell_content(b"json.cells.x.source"));
        assert!(!is_cell_content(b"cells.0.source"));
        assert!(!is_cell_content(b"json.source"));
    }
}
