"""Write books.csv (N rows, default 100000) and authors.csv (500 rows) beside this script."""
import sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
with open("books.csv", "w") as f:
    f.write("isbn,title,author_id,year\n")
    for i in range(n):
        f.write(f"97800{i:08d},Title number {i},A{i % 500},{1900 + i % 120}\n")
with open("authors.csv", "w") as f:
    f.write("author_id,full_name,birth_date\n")
    for i in range(500):
        f.write(f"A{i},Author {i},19{i % 90 + 10}-01-0{i % 9 + 1}\n")
