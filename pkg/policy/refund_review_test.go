package policy

import (
	"strings"
	"testing"
)

// TestRefundLimitsAreChangeOfMindOnly pins what an Australian or Brazilian
// refund policy must not say (issue 8, t5): a return limit that reads as
// excluding a remedy the law gives (ACL ss. 29(1)(m), 64; the ACCC's "no
// refunds" guidance), or a refund time or condition that narrows the CDC's
// 7-day withdrawal (Art. 49: amounts paid returned at once).
func TestRefundLimitsAreChangeOfMindOnly(t *testing.T) {
	t.Parallel()
	req := func(j string, days int) Request {
		return Request{Type: "refund", BusinessName: "Review Ltd", WebsiteURL: "https://review.example", BusinessType: "ecommerce",
			Language: "en", Jurisdiction: j, Format: "markdown", CollectsPayments: true, CollectsUserData: true,
			ContactEmail: "returns@review.example", RefundWindowDays: &days, ReturnShippingPaidBy: "customer"}
	}
	tests := []struct {
		name      string
		req       Request
		must      []string
		mustNot   []string
		mustNotIn string // a section heading whose text mustNot is checked in; "" for the whole document
	}{
		{"AU, no change-of-mind returns: the refusal never reads as excluding ACL remedies", req("AU", 0),
			[]string{"simply changed your mind", "We do not accept change-of-mind returns, so we set no conditions for them", "You are entitled to a replacement or refund for a major failure",
				"you keep your right to a repair, replacement, refund or compensation", "you do not need its original packaging"},
			[]string{"We cannot take back", "we may reduce the refund", "No refunds", "no refunds"}, ""},
		{"AU, a change-of-mind window: its exclusions apply to change of mind only", req("AU", 30),
			[]string{"This limit applies to change of mind only", "You are entitled to a replacement or refund for a major failure",
				"you keep your right to a repair, replacement, refund or compensation"},
			[]string{"We cannot take back", "we may reduce the refund", "No refunds", "no refunds"}, ""},
		{"BR: the 7-day withdrawal is refunded at once, return postage paid by the business", req("BR", 30),
			[]string{"within 7 days", "We do so at once, adjusted for inflation", "We pay the cost of sending the product back",
				"Apart from the 7-day right to withdraw"},
			[]string{"We cannot take back", "we may reduce the refund"}, ""},
		{"BR: the 14-day refund time is for other change-of-mind returns only", req("BR", 0),
			[]string{"For any other change-of-mind return, we send the refund within 14 days"},
			[]string{"We send the refund within 14 days"}, "How and when we refund"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Generate(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != "ready" {
				t.Errorf("status %s, want ready", res.Status)
			}
			for _, m := range tt.must {
				if !strings.Contains(res.Content, m) {
					t.Errorf("missing %q", m)
				}
			}
			text := res.Content
			if tt.mustNotIn != "" {
				_, after, _ := strings.Cut(text, "\n## "+tt.mustNotIn+"\n")
				text, _, _ = strings.Cut(after, "\n## ")
			}
			for _, m := range tt.mustNot {
				if strings.Contains(text, m) {
					t.Errorf("must not say %q", m)
				}
			}
		})
	}
}
