package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/policygen/policygen/pkg/catalog"
)

// maxPage bounds what detect reads of a page or file.
const maxPage = 20 << 20

// urlPattern finds absolute and scheme-relative URLs anywhere in a page,
// inline scripts included (a tag manager's snippet names its host there).
var urlPattern = regexp.MustCompile(`(?i)(?:https?:)?//([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)(?::\d+)?`)

// detect lists the catalog services a page loads: from a URL (fetched from
// this machine), a saved HTML page, or a HAR file (every request the browser
// made). Hosts are matched against the catalog's domains; the page's own
// host and hosts no service claims are listed apart.
func (c *cli) detect(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("detect", flag.ContinueOnError)
	pos, err := c.flags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: detect needs a URL, an HTML file or a HAR file", errUsage)
	}
	hosts, own, err := c.pageHosts(ctx, pos[0])
	if err != nil {
		return err
	}
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	found := map[string][]string{}
	var ids, unmatched []string
	for _, h := range hosts {
		if h == own {
			continue
		}
		if id := serviceFor(cat, h); id != "" {
			if _, ok := found[id]; !ok {
				ids = append(ids, id)
			}
			found[id] = append(found[id], h)
		} else if own == "" || !sameSite(h, own) {
			unmatched = append(unmatched, h)
		}
	}
	slices.Sort(ids)
	fmt.Fprintf(c.stdout, "Services the page loads (%d):\n", len(ids))
	for _, id := range ids {
		s, _ := cat.Service(id)
		fmt.Fprintf(c.stdout, "  %-28s %s (%s)\n", id, s.Name, strings.Join(found[id], ", "))
	}
	slices.Sort(unmatched)
	fmt.Fprintf(c.stdout, "Third-party hosts the catalog does not know (%d):\n", len(unmatched))
	for _, h := range unmatched {
		fmt.Fprintf(c.stdout, "  %s\n", h)
	}
	list, _ := json.Marshal(ids)
	if ids == nil {
		list = []byte("[]")
	}
	fmt.Fprintf(c.stdout, "\n\"thirdPartyServices\": %s\n", list)
	return nil
}

// pageHosts returns the distinct hosts a page refers to, in order, and the
// page's own host ("" for a file without one).
func (c *cli) pageHosts(ctx context.Context, src string) ([]string, string, error) {
	var body []byte
	own := ""
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		u, err := url.Parse(src)
		if err != nil {
			return nil, "", err
		}
		own = strings.ToLower(u.Hostname())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
		if err != nil {
			return nil, "", err
		}
		req.Header.Set("User-Agent", "policygen-detect")
		hc := c.http
		if hc == nil {
			hc = http.DefaultClient
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, "", fmt.Errorf("%s answered %s", src, resp.Status)
		}
		if body, err = io.ReadAll(io.LimitReader(resp.Body, maxPage)); err != nil {
			return nil, "", err
		}
	} else {
		f, err := os.Open(src)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		if body, err = io.ReadAll(io.LimitReader(f, maxPage)); err != nil {
			return nil, "", err
		}
	}
	var urls []string
	if strings.HasSuffix(strings.ToLower(src), ".har") {
		var har struct {
			Log struct {
				Pages []struct {
					Title string `json:"title"`
				} `json:"pages"`
				Entries []struct {
					Request struct {
						URL string `json:"url"`
					} `json:"request"`
				} `json:"entries"`
			} `json:"log"`
		}
		if err := json.Unmarshal(body, &har); err != nil {
			return nil, "", fmt.Errorf("%s is not a HAR file: %w", src, err)
		}
		for i, e := range har.Log.Entries {
			u, err := url.Parse(e.Request.URL)
			if err != nil || u.Host == "" {
				continue
			}
			if i == 0 {
				own = strings.ToLower(u.Hostname()) // the page itself is the first request
			}
			urls = append(urls, strings.ToLower(u.Hostname()))
		}
	} else {
		for _, m := range urlPattern.FindAllSubmatch(body, -1) {
			urls = append(urls, strings.ToLower(string(m[1])))
		}
	}
	var hosts []string
	for _, h := range urls {
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts, own, nil
}

// serviceFor is the catalog service whose domains claim host: "x.com"
// exactly, "*.x.com" for x.com and any subdomain.
func serviceFor(cat *catalog.Catalog, host string) string {
	best, bestLen := "", 0
	for _, s := range cat.Services {
		for _, d := range s.Domains {
			base, wild := strings.CutPrefix(d, "*.")
			if host == base || wild && strings.HasSuffix(host, "."+base) {
				if len(base) > bestLen { // the most specific domain wins
					best, bestLen = s.ID, len(base)
				}
			}
		}
	}
	return best
}

// sameSite reports whether host is the page's own site or a subdomain of it.
func sameSite(host, own string) bool {
	own = strings.TrimPrefix(own, "www.")
	return host == own || strings.HasSuffix(host, "."+own)
}
