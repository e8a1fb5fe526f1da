"""Reports of a run (報告), layer 4: for people, JSON, JUnit XML and Markdown, the dashboard's
model of several reports, and Markdown escaping."""
