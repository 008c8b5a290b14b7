/* explain's page: plays the frames of the embedded JSON (format
 * lbsim-explain) on the machine, frame by frame. Everything drawn comes
 * from the frames; nothing is computed here that the JSON does not say,
 * except where things go on the screen. */
(function () {
  'use strict';
  var SVGNS = 'http://www.w3.org/2000/svg';
  var D = JSON.parse(document.getElementById('lesson-data').textContent);
  var P = D.ranks, frames = D.frames, N = frames.length;
  var cur = 0, timer = null;

  function el(name, attrs, parent, text) {
    var e = document.createElementNS(SVGNS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function $(id) { return document.getElementById(id); }
  function log2(n) { var d = 0; while ((1 << d) < n) d++; return d; }
  function rankColour(r) {
    return 'hsl(' + Math.round((r * 137.508) % 360) + ',55%,' + (r % 2 ? 62 : 72) + '%)';
  }
  var DIM_COLOURS = ['#d62728', '#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf',
                     '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];

  /* ---- the machine's layout: where each rank ran (D.hosts: host, speed,
   * switch), as the platform is built ---- */
  var hosts = D.hosts || null;
  function hostOf(r) { return hosts ? hosts[r][0] : gray(r); }
  var d = log2(P), kind = D.topology;
  var hypercube = kind === 'hypercube' && P <= 64 && (hosts || (1 << d) === P);
  if (hypercube && hosts) {
    d = 0;
    hosts.forEach(function (h) { while ((1 << d) <= h[0]) d++; });
  }
  var dims = D.dims || [];
  var torus = kind === 'torus' && hosts && dims.length > 0;
  var groups = [], groupOf = [];
  var switched = (kind === 'cluster' || kind === 'fat-tree') && hosts;
  var speeds = {}, heterogeneous = false;
  if (hosts) {
    hosts.forEach(function (h) { speeds[h[1]] = true; });
    heterogeneous = Object.keys(speeds).length > 1;
  }
  var S = P <= 8 ? 150 : P <= 16 ? 125 : P <= 32 ? 105 : 92;
  var W = Math.round(S * 0.74), H = Math.round(S * 0.62);
  var pos = [], coords = [];
  function gray(r) { return r ^ (r >> 1); }
  function torusCoords(h) {
    var c = [];
    for (var k = 0; k < dims.length; k++) { c.push(h % dims[k]); h = Math.floor(h / dims[k]); }
    while (c.length < 3) c.push(0);
    return c;
  }
  (function layout() {
    var offsets = [1, 2.25, 4.75, 9.75], r, x, y;
    if (torus) {
      /* the torus's x along a row, y down, its z planes side by side: torus
       * neighbours sit next to each other; only the part the ranks use */
      var lo = [1e9, 1e9, 1e9], hi = [-1, -1, -1];
      for (r = 0; r < P; r++) {
        var c = torusCoords(hosts[r][0]);
        coords.push(c);
        for (var k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], c[k]); hi[k] = Math.max(hi[k], c[k]); }
      }
      var plane = (hi[0] - lo[0] + 1.5) * S;
      for (r = 0; r < P; r++)
        pos.push({x: 20 + (coords[r][2] - lo[2]) * plane + (coords[r][0] - lo[0]) * S,
                  y: 36 + (coords[r][1] - lo[1]) * S});
      return;
    }
    if (switched) {
      /* one box per switch, its ranks in a square inside */
      var index = {};
      for (r = 0; r < P; r++) {
        var g = hosts[r][2];
        if (!(g in index)) { index[g] = groups.length; groups.push({id: g, ranks: []}); }
        groupOf.push(index[g]);
        groups[index[g]].ranks.push(r);
      }
      var perRow = Math.ceil(Math.sqrt(groups.length)), gx = 10, gy = 10, rowH = 0;
      groups.forEach(function (grp, i) {
        var cols = Math.ceil(Math.sqrt(grp.ranks.length)), rows = Math.ceil(grp.ranks.length / cols);
        if (i > 0 && i % perRow === 0) { gx = 10; gy += rowH + 14; rowH = 0; }
        grp.x = gx; grp.y = gy;
        grp.w = (cols - 1) * S + W + 20; grp.h = (rows - 1) * S + H + 40;
        grp.ranks.forEach(function (rank, k) {
          pos[rank] = {x: gx + 10 + (k % cols) * S, y: gy + 30 + Math.floor(k / cols) * S};
        });
        gx += grp.w + 14;
        rowH = Math.max(rowH, grp.h);
      });
      return;
    }
    for (r = 0; r < P; r++) {
      x = 0; y = 0;
      if (hypercube) {
        var hb = hostOf(r);
        for (var b = 0; b < d; b++)
          if (hb & (1 << b)) {
            if (b % 2 === 0) x += offsets[b >> 1] * S; else y += offsets[b >> 1] * S;
          }
      } else {
        var cols2 = Math.ceil(Math.sqrt(P));
        x = (r % cols2) * S;
        y = Math.floor(r / cols2) * S;
      }
      pos.push({x: x + 20, y: y + 20});
    }
  })();
  var width = 0, height = 0;
  pos.forEach(function (p) { width = Math.max(width, p.x + W + 20); height = Math.max(height, p.y + H + 20); });
  groups.forEach(function (g) { width = Math.max(width, g.x + g.w + 10); height = Math.max(height, g.y + g.h + 10); });
  var maxLoad = 1, maxBytes = 1;
  frames.forEach(function (f) {
    f.loads.forEach(function (l) { maxLoad = Math.max(maxLoad, l); });
    f.messages.forEach(function (m) { maxBytes = Math.max(maxBytes, m[2]); });
  });
  var average = frames[0].loads.reduce(function (a, b) { return a + b; }, 0) / P;

  function centre(r) { return {x: pos[r].x + W / 2, y: pos[r].y + H / 2}; }

  function drawMachine(svg, f, small) {
    clear(svg);
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    if (!small) { svg.setAttribute('width', width); svg.setAttribute('height', height); }
    var defs = el('defs', {}, svg);
    var marker = el('marker', {id: small ? 'head-s' + f.index : 'head', viewBox: '0 0 10 10', refX: 9, refY: 5,
      markerWidth: 10, markerHeight: 10, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse'}, defs);
    el('path', {d: 'M0,0 L10,5 L0,10 z', fill: '#333'}, marker);
    if (hypercube) {
      for (var r = 0; r < P; r++)
        for (var s = r + 1; s < P; s++) {
          var diff = hostOf(r) ^ hostOf(s), k = 0;
          if (diff === 0 || (diff & (diff - 1)) !== 0) continue;
          while ((1 << k) !== diff) k++;
          var a = centre(r), b = centre(s);
          el('line', {x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: DIM_COLOURS[k % 10],
            'class': 'edge', 'data-dim': k}, svg);
        }
    }
    if (torus) drawTorusLinks(svg);
    groups.forEach(function (g, i) {
      var box = el('g', {'class': 'switch', 'data-switch': g.id}, svg);
      el('rect', {x: g.x, y: g.y, width: g.w, height: g.h, rx: 6}, box);
      el('text', {x: g.x + 8, y: g.y + 17}, box, (kind === 'fat-tree' ? 'leaf switch ' : 'switch ') +
         g.id + ': ' + g.ranks.length + ' rank' + (g.ranks.length === 1 ? '' : 's'));
    });
    for (var r2 = 0; r2 < P; r2++)
      drawRank(groups.length ? svg.querySelectorAll('g.switch')[groupOf[r2]] : svg, f, r2);
    var many = f.messages.length > 24;
    f.messages.forEach(function (m, i) {
      var a = centre(m[0]), b = centre(m[1]);
      var dx = b.x - a.x, dy = b.y - a.y, len = Math.sqrt(dx * dx + dy * dy) || 1;
      /* both directions of a pair apart: bend to the sender's right */
      var bend = Math.min(90, 12 + len / 4), mx = (a.x + b.x) / 2 - dy / len * bend,
          my = (a.y + b.y) / 2 + dx / len * bend;
      var ux = dx / len, uy = dy / len, pad = Math.min(W, H) / 2;
      var sx = a.x + ux * pad, sy = a.y + uy * pad, ex = b.x - ux * pad, ey = b.y - uy * pad;
      var w = 1 + 5 * Math.sqrt(m[2] / maxBytes);
      var path = el('path', {d: 'M' + sx + ',' + sy + ' Q' + mx + ',' + my + ' ' + ex + ',' + ey,
        'class': 'arrow', stroke: m[4] > 0 ? '#c9503c' : '#333', 'stroke-width': w,
        'marker-end': 'url(#' + (small ? 'head-s' + f.index : 'head') + ')',
        'data-src': m[0], 'data-dst': m[1], 'data-bytes': m[2]}, svg);
      el('title', {}, path, 'rank ' + m[0] + ' \u2192 rank ' + m[1] + ': ' + m[3] + ' (' + m[2] + ' bytes)');
      if (!many && !small)
        el('text', {x: (sx + 2 * mx + ex) / 4, y: (sy + 2 * my + ey) / 4 + 3, 'class': 'arrow-label',
          'text-anchor': 'middle'}, svg, m[3].length > 24 ? m[3].slice(0, 22) + '\u2026' : m[3]);
    });
  }

  /* a torus link between ranks one step apart along an axis; the
   * wrap-around link, when the ranks span the axis, as an arc outside */
  function drawTorusLinks(svg) {
    for (var r = 0; r < P; r++)
      for (var s = r + 1; s < P; s++) {
        var axis = -1, wrap = false, other = 0;
        for (var k = 0; k < 3; k++) {
          var n = k < dims.length ? dims[k] : 1, dk = Math.abs(coords[r][k] - coords[s][k]);
          if (dk === 0) continue;
          if (dk === 1 || (n > 2 && dk === n - 1)) { axis = k; wrap = dk !== 1; other++; }
          else other += 2;
        }
        if (other !== 1) continue;
        var a = centre(r), b = centre(s), colour = DIM_COLOURS[axis];
        if (!wrap || axis === 2) {
          if (wrap) continue;
          el('line', {x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: colour, 'class': 'edge torus-link',
            'data-axis': axis}, svg);
          continue;
        }
        var lift = axis === 0 ? -(H / 2 + 10) : 0, side = axis === 1 ? -(W / 2 + 10) : 0;
        var ax = axis === 0 ? a.x : a.x + side, ay = axis === 0 ? a.y + lift : a.y;
        el('path', {d: 'M' + a.x + ',' + a.y + ' C' + ax + ',' + ay + ' ' + (axis === 0 ? b.x : b.x + side) +
          ',' + (axis === 0 ? b.y + lift : b.y) + ' ' + b.x + ',' + b.y, fill: 'none', stroke: colour,
          'class': 'edge torus-link wrap', 'stroke-dasharray': '5 3', 'data-axis': axis}, svg);
      }
  }

  function speedText(v) {
    return v >= 1e9 ? (v / 1e9).toFixed(v % 1e9 ? 3 : 0) + ' GF/s' : (v / 1e6).toFixed(0) + ' MF/s';
  }

  function drawRank(svg, f, r) {
    var p = pos[r], load = f.loads[r];
    var g = el('g', {'class': 'rank', 'data-rank': r, 'data-load': load,
      transform: 'translate(' + p.x + ',' + p.y + ')'}, svg);
    if (hosts) {
      g.setAttribute('data-host', hosts[r][0]);
      g.setAttribute('data-speed', hosts[r][1]);
      if (switched) g.setAttribute('data-switch', hosts[r][2]);
    }
    if (torus) g.setAttribute('data-coords', coords[r].slice(0, Math.max(dims.length, 1)).join(','));
    el('rect', {'class': 'box', width: W, height: H, rx: 4}, g);
    var narrow = W < 90;
    el('text', {x: 4, y: 12}, g, narrow ? 'r' + r : 'rank ' + r);
    if (hypercube) {
      var bits = '';
      for (var k = d - 1; k >= 0; k--) bits += (hostOf(r) >> k) & 1;
      el('text', {x: W - 4, y: narrow ? 24 : 12, 'text-anchor': 'end', 'class': 'code'}, g, bits);
    } else if (torus) {
      el('text', {x: W - 4, y: narrow ? 24 : 12, 'text-anchor': 'end', 'class': 'code'}, g,
         '(' + coords[r].slice(0, dims.length).join(',') + ')');
    } else if (hosts && !narrow) {
      el('text', {x: W - 4, y: 12, 'text-anchor': 'end', 'class': 'code'}, g, 'n' + hosts[r][0]);
    }
    if (heterogeneous)
      el('text', {x: W - 4, y: narrow && (torus || hypercube) ? 36 : narrow ? 12 : 24,
        'text-anchor': 'end', 'class': 'speed' +
        (hosts[r][1] > Math.min.apply(null, Object.keys(speeds).map(Number)) ? ' fast' : '')}, g,
        speedText(hosts[r][1]));
    var barMax = H - 30, bh = Math.max(load > 0 ? 1 : 0, barMax * load / maxLoad);
    el('rect', {'class': 'bar' + (load > average * 1.05 ? ' over' : ''), x: 4, y: H - 4 - bh,
      width: W * 0.28, height: bh}, g);
    var avgY = H - 4 - barMax * average / maxLoad;
    el('line', {x1: 2, x2: W * 0.28 + 6, y1: avgY, y2: avgY, stroke: '#1d6b2f',
      'stroke-dasharray': '3 2'}, g);
    el('text', {x: W * 0.28 + 8, y: H - 16, 'class': 'load'}, g, 'load ' + load);
    var range = f.ranges ? f.ranges[r] : null;
    if (range)
      el('text', {x: W * 0.28 + 8, y: H - 4, 'class': 'range'}, g,
         range[2] === 0 ? 'no ' + D.unit : range[0] + '..' + range[1] + ' (' + range[2] + ')');
  }

  /* ---- the balancer's own view ---- */
  var family = $('family'), familyCaption = $('family-caption');
  var phaseIndex = {};
  D.phases.forEach(function (name, i) { phaseIndex[name] = i; });

  /* MLB: the tree of sub-hypercubes; a block's accumulated load is known
   * once phase 1 has crossed the edges inside it, its desired load once
   * phase 2 has run */
  function drawBlocks(svg, f) {
    clear(svg);
    var levels = 0;
    D.blocks.forEach(function (b) { levels = Math.max(levels, b[0]); });
    var leafW = Math.max(34, Math.min(70, 560 / P)), w = leafW * P, rowH = 42;
    svg.setAttribute('viewBox', '0 0 ' + (w + 10) + ' ' + ((levels + 1) * rowH + 10));
    svg.setAttribute('width', w + 10);
    svg.setAttribute('height', (levels + 1) * rowH + 10);
    var accumulate = phaseIndex.accumulate, desired = phaseIndex.desired;
    D.blocks.forEach(function (b) {
      var level = b[0], first = b[1], size = b[2];
      var known = f.index > 0 && (f.phase > accumulate ||
        (f.phase === accumulate && f.step >= levels - level - 1)) || level === levels;
      var wanted = f.index > 0 && f.phase >= desired;
      var g = el('g', {'class': 'block' + (known ? ' lit' : '') + (wanted ? ' wanted' : ''),
        'data-level': level, 'data-first': first}, svg);
      var x = 5 + first * leafW, y = 5 + level * rowH;
      el('rect', {x: x + 2, y: y, width: size * leafW - 4, height: rowH - 8, rx: 3}, g);
      el('text', {x: x + size * leafW / 2, y: y + 13, 'text-anchor': 'middle'}, g,
         known ? 'load ' + b[3] : '?');
      el('text', {x: x + size * leafW / 2, y: y + 27, 'text-anchor': 'middle', 'class': 'desired'}, g,
         wanted ? 'want ' + b[4] : '');
    });
    familyCaption.textContent = 'The tree of sub-hypercubes, root first: a block lights up ' +
      'when phase 1 (accumulate) has summed its load, and shows its desired load once ' +
      'phase 2 has run.';
  }

  /* a field's cells coloured by owner, each frame's moves applied */
  var owners = null;
  function ownerAt(k) {
    if (!owners) {
      owners = [D.owner.slice()];
      for (var i = 1; i < N; i++) {
        var o = owners[i - 1].slice();
        frames[i].moves.forEach(function (m) {
          for (var id = m[2]; id < m[2] + m[3]; id++) o[id] = m[1];
        });
        owners.push(o);
      }
    }
    return owners[k];
  }
  function drawField(svg, f) {
    clear(svg);
    var nx = D.size[0], ny = D.size[1] || 1, owner = ownerAt(f.index);
    var c = Math.max(4, Math.min(28, Math.floor(520 / Math.max(nx, ny))));
    svg.setAttribute('viewBox', '0 0 ' + (nx * c + 10) + ' ' + (ny * c + 10));
    svg.setAttribute('width', nx * c + 10);
    svg.setAttribute('height', ny * c + 10);
    var boxes = [];
    for (var y = 0; y < ny; y++)
      for (var x = 0; x < nx; x++) {
        var r = owner[y * nx + x];
        el('rect', {x: 5 + x * c, y: 5 + (ny - 1 - y) * c, width: c, height: c,
          fill: rankColour(r)}, svg);
        var b = boxes[r] || (boxes[r] = [x, y, x, y]);
        b[0] = Math.min(b[0], x); b[1] = Math.min(b[1], y);
        b[2] = Math.max(b[2], x); b[3] = Math.max(b[3], y);
      }
    boxes.forEach(function (b, r) {
      if (!b) return;
      el('rect', {x: 5 + b[0] * c, y: 5 + (ny - 1 - b[3]) * c, width: (b[2] - b[0] + 1) * c,
        height: (b[3] - b[1] + 1) * c, fill: 'none', stroke: '#222', 'stroke-width': 1.5,
        'class': 'cut', 'data-rank': r}, svg);
      el('text', {x: 5 + (b[0] + b[2] + 1) * c / 2, y: 5 + (ny - (b[1] + b[3] + 1) / 2) * c + 4,
        'text-anchor': 'middle', 'font-size': 11}, svg, r);
    });
    familyCaption.textContent = 'The field, ' + nx + ' x ' + ny + ' cells, each coloured by ' +
      'the rank that holds it after this frame; the black boxes are the ranks\' blocks, so ' +
      'the cuts move as the cells do.';
  }

  /* SFC: the curve's sequence of hnodes cut into segments, in rank order,
   * each as wide as its load */
  function drawSegments(svg, f, top) {
    var total = f.loads.reduce(function (a, b) { return a + b; }, 0) || 1, w = 560, x = 5;
    if (!top) {
      clear(svg);
      top = 0;
      svg.setAttribute('viewBox', '0 0 ' + (w + 10) + ' 90');
      svg.setAttribute('width', w + 10);
      svg.setAttribute('height', 90);
    }
    svg = el('g', {transform: 'translate(0,' + top + ')'}, svg);
    el('text', {x: 5, y: 14}, svg, 'the curve\'s sequence of ' + D.unit + ', start to end');
    f.loads.forEach(function (l, r) {
      var sw = w * l / total;
      var g = el('g', {'class': 'segment', 'data-rank': r}, svg);
      el('rect', {x: x, y: 22, width: Math.max(sw, 0.5), height: 34, fill: rankColour(r),
        stroke: '#222'}, g);
      if (sw > 14) el('text', {x: x + sw / 2, y: 43, 'text-anchor': 'middle'}, g, 'P' + r);
      x += sw;
    });
    f.messages.forEach(function (m) {
      if (m[4] === 0) return;
      var y = m[1] > m[0] ? 72 : 84;
      el('text', {x: 5, y: y}, svg, 'P' + m[0] + ' \u2192 P' + m[1] + ': ' + m[3]);
    });
    familyCaption.textContent = 'The segments of the curve, one per rank in rank order, each ' +
      'as wide as its load after this frame: a shift moves a boundary.';
  }

  /* SFC over a 2D H-tree: the leaves over the square, each coloured by the
   * rank whose segment holds it after this frame, the curve through them in
   * its order; a boundary between segments is a black dot on the curve,
   * and a leaf that changed hands in this frame has a thick outline */
  function drawCurveTree(svg, f) {
    clear(svg);
    var leaves = D.tree.steps[f.adaptation], owners = f.leaf_owners, side = 1 << D.tree.order;
    var before = f.index > 0 && frames[f.index - 1].adaptation === f.adaptation ?
      frames[f.index - 1].leaf_owners : owners;
    var size = 380, c = size / side, top = 8;
    svg.setAttribute('viewBox', '0 0 ' + 570 + ' ' + (size + 110));
    svg.setAttribute('width', 570);
    svg.setAttribute('height', size + 110);
    var centres = [];
    leaves.forEach(function (leaf, i) {
      var span = side >> leaf[1], x = 5 + leaf[2] * span * c, y = top + size - (leaf[3] + 1) * span * c;
      var owner = owners[i];
      var g = el('g', {'class': 'leaf' + (owner !== before[i] ? ' shifted' : ''), 'data-leaf': leaf[0],
        'data-owner': owner}, svg);
      el('rect', {x: x, y: y, width: span * c, height: span * c, fill: owner >= 0 ? rankColour(owner) : '#fff'}, g);
      el('title', {}, g, 'leaf ' + i + ' of the curve (level ' + leaf[1] + '): rank ' + owner);
      centres.push([x + span * c / 2, y + span * c / 2]);
    });
    el('polyline', {points: centres.map(function (p) { return p.join(','); }).join(' '),
      'class': 'curve'}, svg);
    for (var i = 1; i < leaves.length; i++)
      if (owners[i] !== owners[i - 1]) {
        var mx = (centres[i][0] + centres[i - 1][0]) / 2, my = (centres[i][1] + centres[i - 1][1]) / 2;
        el('circle', {cx: mx, cy: my, r: 4, 'class': 'boundary', 'data-after': i}, svg);
      }
    drawSegments(svg, f, size + top + 8);
    familyCaption.textContent = 'The H-tree\'s ' + leaves.length + ' leaves over the square (y ' +
      'upwards), each coloured by the rank whose segment holds it after this frame, and the ' +
      'curve through them in its order: the black dots are the segments\' boundaries, a thick ' +
      'outline a leaf that changed hands in this frame. Below, the segments by load.';
  }

  /* DLS: who computed which chunk when, growing frame by frame, and what
   * the master still has to hand out */
  function drawGantt(svg, f) {
    clear(svg);
    var end = 0;
    D.chunks.forEach(function (c) { end = Math.max(end, c[7]); });
    var rowH = Math.max(10, Math.min(22, 320 / P)), w = 520, left = 50;
    var h = P * rowH + 70;
    svg.setAttribute('viewBox', '0 0 ' + (w + left + 10) + ' ' + h);
    svg.setAttribute('width', w + left + 10);
    svg.setAttribute('height', h);
    var t = f.index === 0 ? 0 : f.end, handed = 0;
    for (var r = 0; r < P; r++)
      el('text', {x: 4, y: 14 + r * rowH + rowH * 0.7, 'font-size': 10}, svg, 'rank ' + r);
    D.chunks.forEach(function (c) {
      if (c[0] !== f.adaptation || c[6] > t + 1e-12) return;
      handed += c[4];
      var stop = Math.min(c[7], t);
      el('rect', {x: left + w * c[6] / end, y: 14 + c[1] * rowH, width: Math.max(1, w * (stop - c[6]) / end),
        height: rowH - 2, fill: rankColour(c[2]), stroke: c[2] !== c[1] ? '#c9503c' : '#555',
        'stroke-width': c[2] !== c[1] ? 2 : 0.5, 'class': 'chunk'}, svg);
    });
    el('line', {x1: left + w * t / end, x2: left + w * t / end, y1: 10, y2: 14 + P * rowH,
      stroke: '#222', 'stroke-dasharray': '4 3'}, svg);
    var left_ = D.units - handed, y0 = 30 + P * rowH;
    el('text', {x: 4, y: y0, 'font-size': 11, 'class': 'queue'}, svg,
       'the master\'s queue: ' + left_ + ' of ' + D.units + ' ' + D.unit + ' not yet handed out');
    el('rect', {x: left, y: y0 + 6, width: w, height: 12, fill: '#eee', stroke: '#999'}, svg);
    el('rect', {x: left, y: y0 + 6, width: w * left_ / D.units, height: 12, fill: '#4a7fb5'}, svg);
    familyCaption.textContent = 'Chunks as they are handed out and computed (colour: whose ' +
      'data; red outline: migrated), up to this frame\'s time.';
  }

  /* SAMR: every rank's grids as boxes as wide as their loads, frame by
   * frame: a moved grid leaves its rank (a dashed outline stays there in
   * the frame it moves) and appears at the receiver's; a split leaves the
   * grid smaller and its piece at the receiver's. A piece's parent is the
   * grid the message's label names. */
  var gridStates = null;
  function gridsAt(k) {
    if (!gridStates) {
      var state = {};
      D.grids.forEach(function (g, i) { state[g[1]] = {rank: g[0], load: g[2], order: i}; });
      gridStates = [state];
      var order = D.grids.length;
      for (var i = 1; i < N; i++) {
        var next = {}, f = frames[i];
        for (var id in state) next[id] = {rank: state[id].rank, load: state[id].load,
          order: state[id].order, parent: state[id].parent};
        f.moves.forEach(function (m) {
          for (var id = m[2]; id < m[2] + m[3]; id++) {
            var g = next[id];
            if (g && g.rank === m[0]) {
              g.rank = m[1]; g.load = m[4]; g.moved = m[0];
              continue;
            }
            var piece = {rank: m[1], load: m[4], order: order++, split: m[0]};
            f.messages.forEach(function (msg) {
              var named = /grid (\d+)/.exec(msg[3]);
              if (msg[0] !== m[0] || msg[1] !== m[1] || msg[5] !== m[4] || !named) return;
              var parent = next[named[1]];
              piece.parent = parseInt(named[1], 10);
              if (parent) { parent.load = parent.load + (msg[7] || 0) - m[4]; parent.cut = true; }
            });
            next[id] = piece;
          }
        });
        gridStates.push(next);
        state = next;
      }
    }
    return gridStates[k];
  }
  function drawGrids(svg, f) {
    clear(svg);
    var state = gridsAt(f.index), rows = [], maxLoad = 1;
    for (var r = 0; r < P; r++) rows.push([]);
    Object.keys(state).forEach(function (id) {
      var g = state[id];
      rows[g.rank].push({id: parseInt(id, 10), g: g});
    });
    var gone = [];
    Object.keys(state).forEach(function (id) {
      if (state[id].moved !== undefined)
        gone.push({rank: state[id].moved, id: parseInt(id, 10), load: state[id].load, to: state[id].rank});
    });
    rows.forEach(function (row, r) {
      row.sort(function (a, b) { return a.g.order - b.g.order; });
      var sum = 0;
      row.forEach(function (x) { sum += x.g.load; });
      gone.forEach(function (x) { if (x.rank === r) sum += x.load; });
      maxLoad = Math.max(maxLoad, sum);
    });
    var rowH = Math.max(18, Math.min(30, 360 / P)), left = 50, w = 480;
    svg.setAttribute('viewBox', '0 0 ' + (left + w + 20) + ' ' + (P * rowH + 12));
    svg.setAttribute('width', left + w + 20);
    svg.setAttribute('height', P * rowH + 12);
    rows.forEach(function (row, r) {
      var y = 6 + r * rowH, x = left;
      var line = el('g', {'class': 'grid-rank', 'data-rank': r}, svg);
      el('text', {x: 4, y: y + rowH * 0.65, 'font-size': 11}, line, 'rank ' + r);
      row.forEach(function (item) {
        var g = item.g, gw = Math.max(3, w * g.load / maxLoad);
        var cls = 'grid' + (g.moved !== undefined && g.moved !== r ? ' arrived' : '') +
          (g.split !== undefined ? ' piece' : '') + (g.cut ? ' cut' : '');
        var box = el('g', {'class': cls, 'data-grid': item.id, 'data-load': g.load}, line);
        el('rect', {x: x, y: y + 2, width: gw - 2, height: rowH - 5, rx: 2,
          fill: rankColour(r)}, box);
        el('title', {}, box, 'grid ' + item.id + ', load ' + g.load +
          (g.parent !== undefined ? ', a piece of grid ' + g.parent : ''));
        if (gw > 26) el('text', {x: x + gw / 2 - 1, y: y + rowH * 0.65, 'text-anchor': 'middle'},
          box, g.parent !== undefined && gw > 60 ? item.id + ' (of ' + g.parent + ')' : item.id);
        x += gw;
      });
      gone.forEach(function (item) {
        if (item.rank !== r) return;
        var gw = Math.max(3, w * item.load / maxLoad);
        var ghost = el('g', {'class': 'left', 'data-grid': item.id}, line);
        el('rect', {x: x, y: y + 2, width: gw - 2, height: rowH - 5, rx: 2}, ghost);
        if (gw > 40) el('text', {x: x + gw / 2, y: y + rowH * 0.65, 'text-anchor': 'middle'},
          ghost, item.id + ' \u2192 ' + item.to);
        x += gw;
      });
    });
    familyCaption.textContent = 'Every rank\'s grids, each as wide as its load, after this frame ' +
      '(numbers: grid ids). A grid that moves in this frame appears at its new rank (thick outline) ' +
      'and leaves a dashed outline at its old one; a split leaves its grid smaller (dotted ' +
      'outline) and its piece, a new grid, at the receiver\'s.';
  }

  function drawFamily(svg, f) {
    if (D.blocks) drawBlocks(svg, f);
    else if (D.owner && D.size && D.size.length >= 2) drawField(svg, f);
    else if (D.chunks) drawGantt(svg, f);
    else if (D.grids) drawGrids(svg, f);
    else if (D.tree) drawCurveTree(svg, f);
    else if (D.model === 'htree') drawSegments(svg, f);
    else { clear(svg); svg.setAttribute('width', 0); svg.setAttribute('height', 0); }
  }

  /* ---- a frame on screen ---- */
  var slider = $('slider');
  function show(k, fromHash) {
    k = Math.max(0, Math.min(N - 1, k | 0));
    cur = k;
    var f = frames[k];
    $('frame-title').textContent = f.title;
    $('frame-time').textContent = f.time.toFixed(6);
    $('frame-index').textContent = k;
    $('frame-loads').textContent = f.loads.join(' ');
    slider.value = k;
    slider.setAttribute('value', k);
    drawMachine($('machine'), f, false);
    drawFamily(family, f);
    $('frame-lines').textContent = f.lines.length ? f.lines.join('\n') :
      (k === 0 ? 'Nothing has happened yet: every rank holds what the table above says.' :
       'No rank narrated in this frame.');
    var list = $('frame-messages');
    while (list.firstChild) list.removeChild(list.firstChild);
    f.messages.forEach(function (m) {
      var li = document.createElement('li');
      li.textContent = 'rank ' + m[0] + ' \u2192 rank ' + m[1] + ': ' + m[3] + ' (' + m[2] + ' bytes)';
      list.appendChild(li);
    });
    var phase = $('phase');
    for (var i = D.sections.length - 1; i >= 0; i--)
      if (D.sections[i].frame <= k) { phase.value = String(i); break; }
    if (k === 0) phase.value = '';
    if (!fromHash) {
      var hash = '#frame=' + k;
      if (location.hash !== hash) {
        try { history.replaceState(null, '', hash); } catch (e) { /* a page that may not */ }
      }
    }
  }

  function play() {
    if (timer) { clearInterval(timer); timer = null; $('play').textContent = 'play'; return; }
    if (cur >= N - 1) show(0);
    $('play').textContent = 'pause';
    timer = setInterval(function () {
      if (cur >= N - 1) { play(); return; }
      show(cur + 1);
    }, 1000 / parseFloat($('speed').value));
  }

  function frameOfHash() {
    var m = /frame=(\d+)/.exec(location.hash);
    return m ? parseInt(m[1], 10) : 0;
  }

  /* ---- print: one small picture per phase (its last frame) ---- */
  function buildPrint() {
    var view = $('print-view');
    clear(view);
    var h = document.createElement('h2');
    h.textContent = 'One picture per phase, as each ends';
    view.appendChild(h);
    D.sections.forEach(function (s, i) {
      var last = i + 1 < D.sections.length ? D.sections[i + 1].frame - 1 : N - 1;
      var f = frames[last];
      var fig = document.createElement('figure');
      fig.className = 'multiple';
      fig.setAttribute('data-frame', last);
      var svg = document.createElementNS(SVGNS, 'svg');
      fig.appendChild(svg);
      drawMachine(svg, f, true);
      var cap = document.createElement('figcaption');
      cap.textContent = s.name + ' (frame ' + last + ', ' + f.time.toFixed(6) + ' s): loads ' + f.loads.join(' ');
      fig.appendChild(cap);
      view.appendChild(fig);
    });
  }

  /* ---- set up ---- */
  $('summary').textContent = D.summary + ' \u2014 ' + P + ' ranks on ' + D.platform + ', ' +
    D.units + ' ' + D.unit + ' (' + D.model + ').';
  $('intro').textContent = D.intro;
  $('story-text').textContent = D.story;
  $('frame-count').textContent = N - 1;
  slider.max = N - 1;
  slider.setAttribute('max', N - 1);
  var phase = $('phase');
  var none = document.createElement('option');
  none.value = ''; none.textContent = 'before balancing';
  phase.appendChild(none);
  D.sections.forEach(function (s, i) {
    var o = document.createElement('option');
    o.value = String(i);
    o.textContent = s.name;
    phase.appendChild(o);
  });
  phase.addEventListener('change', function () {
    show(phase.value === '' ? 0 : D.sections[parseInt(phase.value, 10)].frame);
  });
  var legend = 'Bars: load (dashed: the average); arrows: this frame\'s messages, as wide as ' +
    'their bytes (red: they carry ' + D.unit + ').';
  $('machine-caption').textContent = (hypercube
    ? 'The hypercube of ' + P + ' ranks, each at its node\'s address (the bits beside it): ' +
      'an edge of dimension k joins nodes whose addresses differ in bit k, drawn in its colour. '
    : torus
    ? 'The ' + dims.join(' x ') + ' torus of ' + D.platform + ', the part its ' + P + ' ranks run ' +
      'on: x along a row, y down' + (dims.length > 2 ? ', each z plane beside the last' : '') +
      '; beside each rank its node\'s coordinates. Neighbours on the torus sit next to each ' +
      'other, joined by a link in its axis\'s colour (dashed: the link that wraps round). '
    : switched
    ? P + ' ranks by the ' + (kind === 'fat-tree' ? 'leaf switch of the fat tree' : 'edge switch') +
      ' their hosts hang from (one box a switch; a message between boxes crosses the ' +
      (kind === 'fat-tree' ? 'spine' : 'uplinks and the core switch') + '). '
    : P + ' ranks in rank order. ') +
    (heterogeneous ? 'The hosts differ in speed: each rank shows its host\'s, the faster in ' +
      'bold. ' : '') + legend;
  $('first').addEventListener('click', function () { show(0); });
  $('prev').addEventListener('click', function () { show(cur - 1); });
  $('next').addEventListener('click', function () { show(cur + 1); });
  $('play').addEventListener('click', play);
  $('print').addEventListener('click', function () {
    document.body.classList.toggle('printing');
    $('print').textContent = document.body.classList.contains('printing') ? 'screen view' : 'print view';
  });
  $('speed').addEventListener('change', function () { if (timer) { play(); play(); } });
  slider.addEventListener('input', function () { show(parseInt(slider.value, 10)); });
  document.addEventListener('keydown', function (e) {
    if (e.target && (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') &&
        e.key !== ' ') return;
    if (e.key === 'ArrowRight') { show(cur + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { show(cur - 1); e.preventDefault(); }
    else if (e.key === 'Home') { show(0); e.preventDefault(); }
    else if (e.key === 'End') { show(N - 1); e.preventDefault(); }
    else if (e.key === ' ') { play(); e.preventDefault(); }
  });
  window.addEventListener('hashchange', function () { show(frameOfHash(), true); });
  buildPrint();
  show(frameOfHash(), true);
})();
