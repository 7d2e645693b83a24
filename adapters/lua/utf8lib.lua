-- Lua 5.4's standard `utf8` library as utf8conform decoders (docs/protocol.md).
--
-- Usage: lua5.4 adapters/lua/utf8lib.lua [lua-utf8-strict | lua-utf8-lax]
--
--   lua-utf8-strict   the utf8 functions with their default checks
--   lua-utf8-lax      the same functions with `lax = true`. The Lua 5.4
--                     manual, §6.5: by default the functions "only accept
--                     byte sequences that result in valid Unicode code
--                     points, rejecting values greater than 10FFFF and
--                     surrogates. A boolean argument lax, when available,
--                     lifts these checks, so that all values up to 0x7FFFFFFF
--                     are accepted. (Not well formed and overlong sequences
--                     are still rejected.)" - "as defined in the original
--                     UTF-8 specification", i.e. RFC 2279's 5- and 6-byte
--                     forms.
--
-- Library calls and what each capability maps to (LAX is false or true):
--
--   validate, position
--       utf8.len(s, 1, -1, LAX): "If it finds any invalid byte sequence,
--       returns fail plus the position of the first invalid byte" (manual
--       §6.5). fail = invalid; valid_up_to = that 1-based position - 1.
--       Its number (the character count) on success = valid.
--   decode
--       on input utf8.len accepted: `for _, c in utf8.codes(s, LAX)`, the
--       code points in order (manual: utf8.codes "raises an error if it
--       meets any invalid byte sequence"; it did not on any input utf8.len
--       accepted among every 1- and 2-byte input and 300,000 random ones of
--       up to 8 bytes; if it did, the adapter would die with the library's
--       message on stderr, a crash the harness records).
--   encode
--       utf8.char(n): "Receives zero or more integers, converts each one to
--       its corresponding UTF-8 byte sequence", and "functions that create
--       byte sequences accept all values up to 0x7FFFFFFF" (manual §6.5). It
--       takes no `lax` argument: above 0x7FFFFFFF it raises "value out of
--       range" ("out-of-range"); surrogates and values above U+10FFFF are
--       encoded as they come, in both variants.
--
-- Not claimed:
--   subpart  utf8.len tells where the bad sequence starts, never how long it
--            is, nor whether more bytes could have completed it.
--   lossy    the library has no replacing mode.
--
-- JSON: Debian's lua-cjson (2.1.0, built for 5.4). cjson decodes numbers as
-- floats, so ids and scalars are checked to be integral (cjson.encode writes
-- an integral float back without a fraction, up to 14 significant digits:
-- every id the harness sends). Answers are written by hand because cjson
-- 2.1.0 encodes an empty table as {} where the protocol needs [].
--
-- Version: Lua's scripts see only _VERSION ("Lua 5.4"); the release is asked
-- of the interpreter running this file (`<interpreter> -v`, "Lua 5.4.4 ...").

local cjson = require("cjson")

local variants = { ["lua-utf8-strict"] = false, ["lua-utf8-lax"] = true }
local name = arg[1] or "lua-utf8-strict"
local lax = variants[name]
if lax == nil then
  io.stderr:write("usage: lua5.4 utf8lib.lua [lua-utf8-strict | lua-utf8-lax]\n")
  os.exit(2)
end

cjson.decode_invalid_numbers(false) -- NaN, Infinity, hex: not JSON

local function lua_release()
  local interp = arg[-1]
  if interp and interp:match("^[%w%./_-]+$") then
    local p = io.popen(interp .. " -v 2>&1")
    if p then
      local out = p:read("l") or ""
      p:close()
      local v = out:match("^Lua (%d+%.%d+%.%d+)")
      if v then return v end
    end
  end
  return (_VERSION:gsub("^Lua ", ""))
end

-- The response fields for one decode request, as a JSON fragment.
local function decode(s)
  local n, pos = utf8.len(s, 1, -1, lax)
  if n == nil then
    return ',"valid":false,"valid_up_to":' .. string.format("%d", pos - 1)
  end
  local cps = {}
  for _, c in utf8.codes(s, lax) do cps[#cps + 1] = string.format("%d", c) end
  return ',"valid":true,"scalars":[' .. table.concat(cps, ",") .. "]"
end

local function encode(n)
  local ok, b = pcall(utf8.char, n)
  if not ok then
    if tostring(b):find("value out of range", 1, true) then
      return ',"error":"out-of-range"'
    end
    return ',"error":"refused"'
  end
  return ',"bytes":"' .. b:gsub(".", function(c) return string.format("%02x", c:byte()) end) .. '"'
end

local function parse_hex(h)
  if type(h) ~= "string" or #h % 2 ~= 0 or not h:match("^%x*$") then return nil end
  return (h:gsub("%x%x", function(x) return string.char(tonumber(x, 16)) end))
end

local function bad(id_json, what)
  return '{"id":' .. id_json .. ',"error":"bad request: ' .. what .. '"}'
end

local function handle(line)
  local ok, req = pcall(cjson.decode, line)
  if not ok then return bad("null", "not JSON") end
  if type(req) ~= "table" or line:match("^%s*%[") then return bad("null", "not a JSON object") end
  if req.id == nil then return bad("null", "missing id") end
  local id = cjson.encode(req.id)
  local op = req.op
  if op == nil then return bad(id, "missing op") end
  if op == "decode" then
    if req.bytes == nil then return bad(id, "missing bytes") end
    local s = parse_hex(req.bytes)
    if s == nil then return bad(id, "bad hex in bytes") end
    return '{"id":' .. id .. decode(s) .. "}"
  elseif op == "encode" then
    local n = type(req.scalar) == "number" and math.tointeger(req.scalar)
    if not n or n < 0 or n > 0xFFFFFFFF then
      return bad(id, "scalar must be an integer 0..=4294967295")
    end
    return '{"id":' .. id .. encode(n) .. "}"
  end
  return bad(id, "unknown op")
end

io.stdout:setvbuf("no")
io.stdout:write('{"hello":{"name":"' .. name .. '","version":"' .. lua_release() ..
  '","capabilities":["validate","position","decode","encode"]}}\n')
for line in io.stdin:lines("L") do
  io.stdout:write(handle((line:gsub("\r?\n$", ""))) .. "\n")
end
