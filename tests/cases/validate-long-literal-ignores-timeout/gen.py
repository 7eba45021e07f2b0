"""Write big.nt: two triples, one a literal of N characters (default 2,000,000): python3 gen.py [N]"""
import sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
with open("big.nt", "w") as f:
    f.write("<http://example.org/a/1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .\n")
    f.write('<http://example.org/a/1> <http://xmlns.com/foaf/0.1/name> "' + "x" * n + '" .\n')
