-- The benign request mix of benches/load.sh: what a browser and a single-page app send to a shop.
-- Each wrk connection cycles through the four requests below; MIX_ONLY=1..4 sends only that one (benches/instructions.sh
-- uses it to count instructions per request kind).
local browser = {
  ["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
  ["Accept"] = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
  ["Accept-Language"] = "en-US,en;q=0.9,de;q=0.8",
  ["Accept-Encoding"] = "gzip, deflate, br",
  ["Referer"] = "http://shop.example.com/products/list?category=books",
  ["Cookie"] = "session=9f8e7d6c5b4a39281706f5e4d3c2b1a0; theme=dark; lang=en-US; consent=analytics%3Dno",
}

local function with(extra)
  local h = {}
  for k, v in pairs(browser) do h[k] = v end
  for k, v in pairs(extra or {}) do h[k] = v end
  return h
end

local requests

function init(args)
  requests = {
    wrk.format("GET", "/products/list?category=books&page=2&sort=price_asc&q=rust+programming+language", with()),
    wrk.format("POST", "/account/profile",
      with({ ["Content-Type"] = "application/x-www-form-urlencoded" }),
      "first_name=Jane&last_name=Doe&email=jane.doe%40example.com&city=Berlin&zip=10115&newsletter=on" ..
      "&comment=Looking+forward+to+the+next+release%2C+thanks%21"),
    wrk.format("POST", "/api/v1/orders",
      with({ ["Content-Type"] = "application/json", ["Accept"] = "application/json" }),
      '{"customer":{"id":48213,"name":"Jane Doe"},"items":[{"sku":"BK-1029","qty":2},{"sku":"BK-2210","qty":1}],' ..
      '"shipping":{"method":"express","address":"Unter den Linden 5, 10117 Berlin"},"note":"Please ring twice","gift":false}'),
    wrk.format("GET", "/static/app.js?v=3.14.2", with({ ["Accept"] = "*/*" })),
  }
  local only = tonumber(os.getenv("MIX_ONLY") or "")
  if only then requests = { requests[only] } end
end

local i = 0
function request()
  i = i % #requests + 1
  return requests[i]
end
