-- The benign request mix of benches/load.sh: what a browser and a single-page app send to a shop.
-- Each wrk connection cycles through the four requests below; MIX_ONLY=1..4 sends only that one (benches/instructions.sh
-- uses it to count instructions per request kind).
-- UNIQUE=1 gives every request its own query values, session cookie, form fields and JSON values (a counter per
-- wrk thread and a random prefix), as if each came from another visitor: the values the waf remembers from
-- earlier requests (waf_compiler::memo) are then only the browser headers.
-- CLOSE=1 asks for the connection to be closed after each answer (`Connection: close`): wrk then opens a new
-- connection for every request (benches/instructions.sh's PER_CONNECTION=1 counts what a connection costs).
-- The site's name as Host, as a browser sends it (wrk would send 127.0.0.1:port, a numeric Host that CRS 920350
-- scores and the waf logs on every request, which browser traffic does not cause).
local browser = {
  ["Host"] = "shop.example.com",
  ["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
  ["Accept"] = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
  ["Accept-Language"] = "en-US,en;q=0.9,de;q=0.8",
  ["Accept-Encoding"] = "gzip, deflate, br",
  ["Referer"] = "http://shop.example.com/products/list?category=books",
}

if os.getenv("CLOSE") == "1" then
  browser["Connection"] = "close"
end

local function cookie(id)
  return "session=9f8e7d6c5b4a39281706f5e4d3c2b1a0" .. id .. "; theme=dark; lang=en-US; consent=analytics%3Dno"
end

local function with(id, extra)
  local h = { ["Cookie"] = cookie(id) }
  for k, v in pairs(browser) do h[k] = v end
  for k, v in pairs(extra or {}) do h[k] = v end
  return h
end

-- Request `kind` (1..4) of the mix for one visitor `id` ("" for the fixed mix).
local function build(kind, id)
  if kind == 1 then
    return wrk.format("GET", "/products/list?category=books" .. id .. "&page=2&sort=price_asc&q=rust+programming+language" .. id,
      with(id))
  elseif kind == 2 then
    return wrk.format("POST", "/account/profile",
      with(id, { ["Content-Type"] = "application/x-www-form-urlencoded" }),
      "first_name=Jane" .. id .. "&last_name=Doe&email=jane.doe" .. id .. "%40example.com&city=Berlin&zip=10115&newsletter=on" ..
      "&comment=Looking+forward+to+the+next+release%2C+thanks%21+" .. id)
  elseif kind == 3 then
    return wrk.format("POST", "/api/v1/orders",
      with(id, { ["Content-Type"] = "application/json", ["Accept"] = "application/json" }),
      '{"customer":{"id":48213' .. id .. ',"name":"Jane Doe ' .. id .. '"},"items":[{"sku":"BK-1029","qty":2},{"sku":"BK-2210","qty":1}],' ..
      '"shipping":{"method":"express","address":"Unter den Linden 5, 10117 Berlin"},"note":"Please ring twice ' .. id .. '","gift":false}')
  end
  return wrk.format("GET", "/static/app.js?v=3.14.2" .. id, with(id, { ["Accept"] = "*/*" }))
end

local kinds, requests, unique, prefix
local i, n = 0, 0

function init(args)
  local only = tonumber(os.getenv("MIX_ONLY") or "")
  kinds = only and { only } or { 1, 2, 3, 4 }
  unique = os.getenv("UNIQUE") == "1"
  -- Each wrk thread has its own Lua state: the table's address tells them apart.
  math.randomseed(os.time() + tonumber(tostring({}):match("(%x+)$"), 16) % 1000003)
  prefix = tostring(math.random(100000, 999999))
  requests = {}
  for k, kind in ipairs(kinds) do requests[k] = build(kind, "") end
end

function request()
  i = i % #kinds + 1
  if not unique then
    return requests[i]
  end
  n = n + 1
  return build(kinds[i], prefix .. n)
end
