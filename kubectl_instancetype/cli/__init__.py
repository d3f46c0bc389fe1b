"""The command line: app assembly and one module per command. Parses flags, calls the domain, prints."""
