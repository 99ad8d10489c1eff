"""Prints the Celsius trace as HTML for the site's trace page (site.py runs it in the release
folder: `python -m autograder.deploy.trace_page`), drawn by that release's own nano.trace."""

import html

from nano.trace import load_trace, to_html

trace = load_trace()
print(f"<p><b>The request:</b> {html.escape(trace.request)}</p>")
print("<ol start='0' class='notes'>")
for note in trace.notes:
    print(f"<li>{html.escape(note)}</li>")
print("</ol>")
print(to_html(trace.entries))
