"""Drives the admin panel in Debian's headless Chromium (through Debian's chromedriver, with Selenium):
the setup wizard with the token, sign-in, a switch to observe mode, an attack sent through the proxy that
then shows on the dashboard, a domain added with its own anomaly threshold, rule exclusion and rule, a domain
added with a self-signed certificate and then fetched over HTTPS by its name (SNI), a port change answered as
taking effect at restart, and the domain's rule found in the rule list. Run by waf-runtime/tests/admin.rs, which
starts the real `waf` with HTTPS on.

Arguments: PANEL_URL PROXY_URL SETUP_TOKEN SCREENSHOT_DIR UPSTREAM_URL HTTPS_ADDR CA_FILE (the proxy's local CA,
`auto_cert_dir/ca.pem`). Exit status 0 when every step was seen in the page.
"""
import os
import socket
import ssl
import sys
import tempfile
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as seen
from selenium.webdriver.support.ui import Select, WebDriverWait

panel, proxy, token, shots, upstream, https_addr, ca_file = sys.argv[1:8]
os.makedirs(shots, exist_ok=True)
PASSWORD = "a long enough password"

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--window-size=1200,1000",
             f"--user-data-dir={tempfile.mkdtemp(prefix='waf-chromium-')}"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 20)


def visible(element_id):
    return wait.until(seen.visibility_of_element_located((By.ID, element_id)))


def text_in(element_id, text):
    wait.until(seen.text_to_be_present_in_element((By.ID, element_id), text))


def shot(name):
    driver.save_screenshot(os.path.join(shots, f"{name}.png"))


def fetch_over_https(host, path):
    """One GET to the proxy's HTTPS listener with `host` as SNI name, the certificate checked against the
    proxy's local CA and `host`; returns the certificate's names and the raw answer."""
    context = ssl.create_default_context(cafile=ca_file)
    address, port = https_addr.rsplit(":", 1)
    with socket.create_connection((address, int(port)), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=host) as tls:
            names = tls.getpeercert()["subjectAltName"]
            tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := tls.recv(65536):
                answer += chunk
    return names, answer.decode("latin-1")


try:
    driver.get(panel)
    visible("setup-token").send_keys(token)
    driver.find_element(By.ID, "setup-username").send_keys("admin")
    driver.find_element(By.ID, "setup-password").send_keys(PASSWORD)
    shot("1-setup-wizard")
    driver.find_element(By.CSS_SELECTOR, "#setup-form button").click()

    visible("sign-in-username").send_keys("admin")
    driver.find_element(By.ID, "sign-in-password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()
    visible("panel")
    text_in("who", "admin")
    shot("2-signed-in")

    Select(driver.find_element(By.ID, "mode")).select_by_value("observe")
    driver.find_element(By.CSS_SELECTOR, "#mode-form button").click()
    text_in("message", "Mode observe")
    shot("3-observe-mode")

    # The attack goes through the proxy (not the panel); in observe mode it is forwarded and reported.
    request = urllib.request.Request(f"{proxy}/search?q=attack-me", headers={"Host": "shop.test"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200, answer.status
        request_id = answer.headers["X-Request-ID"]
    text_in("recent", "/search?q=attack-me")
    text_in("recent", "observed")
    text_in("recent", request_id)
    text_in("observed", "1")
    shot("4-attack-on-dashboard")
    # Found by its request id (what a user quotes from a 403): the list then holds that request alone.
    driver.find_element(By.ID, "blocked-request-id").send_keys("no-such-request")
    driver.find_element(By.CSS_SELECTOR, "#blocked-search-form button").click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#recent tr"))
    driver.find_element(By.ID, "blocked-request-id").clear()
    driver.find_element(By.ID, "blocked-request-id").send_keys(request_id)
    driver.find_element(By.CSS_SELECTOR, "#blocked-search-form button").click()
    text_in("recent", request_id)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#recent tr")) == 1

    # A domain, then its own threshold and rule exclusion, through the forms.
    driver.find_element(By.ID, "domain-host").send_keys("shop.test")
    driver.find_element(By.ID, "domain-upstream").send_keys(upstream)
    driver.find_element(By.CSS_SELECTOR, "#domain-form button").click()
    text_in("domains", "shop.test")
    driver.find_element(By.ID, "rules-host").send_keys("shop.test")
    driver.find_element(By.ID, "rules-threshold").send_keys("10")
    driver.find_element(By.ID, "rules-excluded").send_keys("100001")
    driver.find_element(By.ID, "rules-custom").send_keys(
        "- {id: 500001, msg: shop admin path, pattern: '^/admin', variables: [REQUEST_FILENAME], action: log}")
    driver.find_element(By.CSS_SELECTOR, "#domain-rules-form button").click()
    text_in("message", "shop.test: rules set")
    text_in("domains", "100001")
    shot("5-domain-rules")

    # A domain with a self-signed certificate: served over HTTPS for its name at once.
    for field, value in [("domain-host", "secure.test"), ("domain-upstream", upstream)]:
        driver.find_element(By.ID, field).clear()
        driver.find_element(By.ID, field).send_keys(value)
    Select(driver.find_element(By.ID, "domain-tls")).select_by_value("self_signed")
    Select(driver.find_element(By.ID, "domain-force-https")).select_by_value("true")
    driver.find_element(By.CSS_SELECTOR, "#domain-form button").click()
    text_in("message", "secure.test saved.")
    text_in("domains", "self-signed")
    shot("6-self-signed-domain")
    names, answer = fetch_over_https("secure.test", "/over-https")
    # The domain's own certificate (the global one of auto_generate also names localhost).
    assert names == (("DNS", "secure.test"),), names
    assert answer.startswith("HTTP/1.1 200"), answer[:300]
    assert "x-upstream: echo" in answer.lower(), answer[:300]

    # A listener change is saved and said to take effect at the next start.
    port = driver.find_element(By.ID, "tls-https-port")
    port.clear()
    port.send_keys("8443")
    driver.find_element(By.CSS_SELECTOR, "#tls-form button").click()
    text_in("message", "takes effect when the proxy restarts")
    text_in("pending", "Restart required: waf.server.https_port is 8443 in waf.yml")
    driver.execute_script("window.scrollTo(0, 0)")  # the message and the list are at the top of the page
    shot("7-tls-restart-required")
    # The rules in force, searched: the domain's own rule is listed, scoped to it.
    driver.find_element(By.ID, "rule-search").send_keys("shop admin")
    driver.find_element(By.CSS_SELECTOR, "#rule-search-form button").click()
    text_in("rule-list", "500001")
    text_in("rule-list", "waf.domains.shop.test.custom_rules")
    shot("8-rules")
    print("browser: wizard, sign-in, observe mode, the attack on the dashboard, a domain's rules, a self-signed "
          "domain served over HTTPS, a restart-required port change and the rule list all seen")
finally:
    driver.quit()
