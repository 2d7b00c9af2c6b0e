-- wrk script for scripts/bench-serve.sh: random requests to a running
-- `spool pwned serve` or its peer, hibp-server.
--
--   ENDPOINT=check  GET /check/sha1/{hash}, hashes from HASHES (a file of
--                   "HASH COUNT" lines, upper case: half present, half
--                   absent)
--   ENDPOINT=range  GET /range/{prefix}, uniformly random prefixes
--   CHECK=1         check every answer (run it with one connection per
--                   thread, so responses follow requests one to one):
--                   /check bodies must equal the expected count; /range
--                   bodies must be lines of a 35-digit suffix and a count.
--                   Prints "answers wrong lines malformed" at the end.
--   PEER=hibp       the answers are hibp-server's: the count and a line
--                   break, -1 for an absent hash
--                   Timed runs leave it unset: checking costs the client
--                   CPU it shares with the server.
--
-- Requests are built once in init(); request() only picks one.

local endpoint = os.getenv("ENDPOINT") or "check"
local hibp = os.getenv("PEER") == "hibp"
local threads = {}

function setup(thread)
   thread:set("id", #threads + 1)
   table.insert(threads, thread)
end

local requests = {}
local expected = {}
local last = 0

function init(args)
   math.randomseed(7919 * id + 17)
   if endpoint == "check" then
      for line in io.lines(os.getenv("HASHES")) do
         local hash, count = line:match("^(%x+) (%d+)$")
         requests[#requests + 1] = wrk.format("GET", "/check/sha1/" .. hash)
         if hibp then
            count = (count == "0" and "-1" or count) .. "\n"
         end
         expected[#expected + 1] = count
      end
   else
      for i = 1, 65536 do
         local prefix = string.format("%05X", math.random(0, 0xFFFFF))
         requests[i] = wrk.format("GET", "/range/" .. prefix)
      end
   end
end

function request()
   last = math.random(1, #requests)
   return requests[last]
end

if os.getenv("CHECK") == "1" then
   -- Globals, so that done() can read each thread's with thread:get().
   answers, wrong, lines, malformed = 0, 0, 0, 0

   function response(status, headers, body)
      answers = answers + 1
      if status ~= 200 then
         wrong = wrong + 1
      elseif endpoint == "check" then
         if body ~= expected[last] then
            wrong = wrong + 1
         end
      elseif #body > 0 then
         for line in (body .. "\r\n"):gmatch("(.-)\r\n") do
            lines = lines + 1
            local suffix = line:match("^(%x+):%d+$")
            if not suffix or #suffix ~= 35 or suffix:upper() ~= suffix then
               malformed = malformed + 1
            end
         end
      end
   end

   function done(summary, latency, requests)
      local total = { 0, 0, 0, 0 }
      for _, thread in ipairs(threads) do
         total[1] = total[1] + thread:get("answers")
         total[2] = total[2] + thread:get("wrong")
         total[3] = total[3] + thread:get("lines")
         total[4] = total[4] + thread:get("malformed")
      end
      io.write(string.format("check: %d %d %d %d\n", total[1], total[2], total[3], total[4]))
   end
end
