"""confbot core: the question-answering pipeline, with no knowledge of Slack or Confluence."""
