"""Index: files to lint (discovery, listings, the byte prefilter) and the cross-file project index (modules, functions, imports; whole or outlined function trees)."""
