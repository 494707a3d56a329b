-- pandoc Lua filter for the PDF (costbook.book.pdf): what the page HTML marks for it, as pandoc
-- elements and calls of the Typst preamble's functions (templates/book.typ).
local function typst_string(s)
  return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"') .. '"'
end

-- a part of the book (`- part:` in _quarto.yml) opens on a page of its own
-- other divs are layout for the browser: only their content, or, where a link points at the div (a
-- reference list entry), a labelled block
function Div(el)
  if el.classes:includes("part") then
    return pandoc.RawBlock("typst", "#part-page(" .. typst_string(el.attributes["part"] or "") .. ")")
  end
  if el.identifier == "" then
    return el.content
  end
end

-- TeX that MathJax typesets in the browser: costbook.book.pdf keeps it in the span's data-tex
function Span(el)
  if el.classes:includes("math") then
    local tex = el.attributes["tex"] or el.attributes["data-tex"] or pandoc.utils.stringify(el)
    return pandoc.Math(el.classes:includes("display") and "DisplayMath" or "InlineMath", tex)
  end
end

-- a chapter's number before its title (the offline book's number, as in its headings)
function Header(el)
  if el.level == 1 and el.classes:includes("numbered-chapter") then
    local number = el.attributes["number"] or el.attributes["data-number"] or ""
    el.content:insert(1, pandoc.RawInline("typst", "#chapter-number(" .. typst_string(number) .. ")"))
    return el
  end
end

-- a captioned table (<figure class="table"><figcaption>..<table>) as one table with its caption,
-- not a table figure inside another figure
function Figure(el)
  if #el.content == 1 and el.content[1].t == "Table" then
    local tbl = el.content[1]
    tbl.caption = el.caption
    if el.identifier ~= "" then tbl.identifier = el.identifier end
    return tbl
  end
end

-- in table cells, a break opportunity (a zero-width space) after the characters that join the long
-- words of the book's tables (paths, keys, commands, library lists), so that the columns can wrap to
-- the text width instead of the table being scaled down to it; never inside a number (1.38, 1,222)
local function with_breaks(text)
  return (text:gsub("()([/_,=:;%.%-%+])", function(at, c)
    if c:match("[,%.%-]") and text:sub(at - 1, at - 1):match("%d") and text:sub(at + 1, at + 1):match("%d") then
      return c
    end
    return c .. "\u{200B}"
  end))
end

local function breakable(cell_blocks)
  return pandoc.walk_block(pandoc.Div(cell_blocks), {
    Str = function(s)
      if #s.text > 12 then
        return pandoc.Str(with_breaks(s.text))
      end
    end,
    Code = function(c)
      if #c.text > 12 then
        c.text = with_breaks(c.text)
        return c
      end
    end,
  }).content
end

-- a cell's text that starts as Typst markup would ("- x" a list, "+ x" an enumeration, "/ term:" a
-- description, "= x" a heading, "1. x" a numbered item): pandoc escapes it in a paragraph but not at the
-- start of a cell's content block, so the cell's first character is escaped here and shows as itself
local function literal_start(cell_blocks)
  local first = cell_blocks[1]
  if first and (first.t == "Plain" or first.t == "Para") and first.content[1] and first.content[1].t == "Str" then
    local text = first.content[1].text
    if (text:match("^[-+/=]+$") or text:match("^%d+%.$")) and first.content[2] and first.content[2].t == "Space" then
      table.insert(first.content, 1, pandoc.RawInline("typst", "\\"))
    end
  end
  return cell_blocks
end

function Table(tbl)
  local function fix_rows(rows)
    for _, row in ipairs(rows) do
      for _, cell in ipairs(row.cells) do
        cell.contents = breakable(literal_start(cell.contents))
      end
    end
  end
  fix_rows(tbl.head.rows)
  for _, body in ipairs(tbl.bodies) do
    fix_rows(body.head)
    fix_rows(body.body)
  end
  fix_rows(tbl.foot.rows)
  return tbl
end
