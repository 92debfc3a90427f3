/// RFC 4180 comma-separated values: parsing and writing.
enum CSV {}
