"""The raw crawl: Common Crawl News (CC-NEWS) WARC files, selected by crawl time and
downloaded resumably, with a manifest of every file's size and sha256."""
