//! The benchmark inputs, shared by `codec.rs` (and any ad-hoc timing
//! harness): five generated classes and the real seed texts, at three sizes,
//! all deterministic.

#![allow(dead_code)]

use utf8conform::generate::SplitMix64;

// ---- inputs --------------------------------------------------------------

/// A uniformly chosen element of `xs`.
fn pick<T: Copy>(rng: &mut SplitMix64, xs: &[T]) -> T {
    xs[below(rng, xs.len())]
}

/// A number in `0..n`.
fn below(rng: &mut SplitMix64, n: usize) -> usize {
    rng.below(n as u64) as usize
}

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "with",
    "be",
    "on",
    "not",
    "this",
    "by",
    "character",
    "sequence",
    "octets",
    "encoding",
    "value",
    "UTF-8",
    "range",
];
const LATIN: &[&str] = &[
    "café", "résumé", "naïve", "über", "größe", "façade", "señor", "años", "déjà", "vu", "crème",
    "brûlée", "élève", "où", "été", "à", "la", "de", "et", "que", "pour", "dans",
];
const CJK: &str = "的一是不了人我在有他这中大来上个国到说们为子和你地出会也时要就可以对生能而那得于着下自之年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象完设式色路记南品住告类求据程北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每济车亲极林服快办议往元英士证近失转夫令准布始怎呢存未远叫台单影具罗字爱击流备兵连调深商算质团集百需价花党华城石级整府离况亚请技际约示复病息究线似官火断精满支视消越器容照须九增研写称企八功吗包片史委乎查轻易早曾除农找装广显吧阿李标谈吃图念六引历首医局突专费号尽另周较注语仅考落青随选列武红响虽推势参希古众构房半节土投某案黑维革划敌致陈律足态护七兴派孩验责营星够章音跟志底站严巴例防族供效续施留讲型料终答紧黄绝奇察母京段依批群项故按河米围江织害斗双境客纪采举杀攻父苏密低朝友诉止细愿千值仍男钱破网热助倒育属坐帝限船脸职速刻乐否刚威毛状率甚独球般普怕弹校苦创假久错承印晚兰试股拿脑预谁益阳若哪微尼继送急血惊伤素药适波夜省初喜卫源食险待述陆习置居劳财环排福纳欢雷警获模充负云停木游龙树疑层冷洲冲射略范竟句室异激汉村哈策演简卡罪判担州静退既衣您宗积余痛检差富灵协角占配征修皮挥胜降阶审沉坚善妈刘读啊超免压银买皇养伊怀执副乱抗犯追帮宣佛岁航优怪香著田铁控税左右份穿艺背阵草脚概恶块顿敢守酒岛托央户烈洋哥索胡款靠评版宝座释景顾弟登货互付伯慢欧换闻危忙核暗姐介坏讨丽良序升监临亮露永呼味野架域沙掉括舰鱼杂误湾吉减编楚肯测败屋跑梦散温困剑渐封救贵枪缺楼县尚毫移娘朋画班智亦耳恩短掌恐遗固席松秘谢鲁遇康虑幸均销钟诗藏赶剧票损忽巨炮旧端探湖录叶春乡附吸予礼港雨呀板庭妇归睛饭额含顺输摇招婚脱补谓督毒油疗旅泽材灭逐莫笔亡鲜词圣择寻厂睡博勒烟授诺伦岸奥唐卖俄炸载洛健堂旁宫喝借君禁阴园谋宋避抓荣姑孙逃牙束跳顶玉镇雪午练迫爷篇肉嘴馆遍凡础洞卷坦牛宁纸诸训私庄祖丝翻暴森塔默握戏隐熟骨访弱蒙歌店鬼软典欲萨伙遭盘爸扩盖弄雄稳忘亿刺拥徒姆杨齐赛趣曲刀床迎冰虚玩析窗醒妻透购替塞努休虎扬途侵刑绿兄迅套贸毕唯谷轮库迹尤竞街促延震弃甲伟麻川申缓潜闪售灯针哲络抵朱埃抱鼓植纯夏忍页杰筑折郑贝尊吴秀混臣雅振染盛怒舞圆搞狂措姓残秋培迷诚宽宇猛摆梅毁伸摩盟末乃悲拍丁赵";
const EMOJI: &[&str] = &[
    "😀", "🎉", "🚀", "👍", "❤️", "🔥", "🌍", "😂", "🙏", "✨", "🤔", "💡",
];

/// `len` bytes of one class (cut at a character boundary, padded with ASCII
/// spaces to exactly `len`).
pub fn generate(class: &str, len: usize) -> Vec<u8> {
    let mut rng = SplitMix64::new(0x5EED_0000 + class.len() as u64);
    let cjk: Vec<char> = CJK.chars().collect();
    let mut out = String::new();
    while out.len() < len + 8 {
        match class {
            "ascii" => {
                out.push_str(pick(&mut rng, WORDS));
                out.push(if below(&mut rng, 12) == 0 { '\n' } else { ' ' });
            }
            "latin" => {
                out.push_str(if below(&mut rng, 3) == 0 {
                    pick(&mut rng, LATIN)
                } else {
                    pick(&mut rng, WORDS)
                });
                out.push(' ');
            }
            "cjk" => {
                for _ in 0..below(&mut rng, 20) + 4 {
                    out.push(pick(&mut rng, &cjk));
                }
                out.push(pick(&mut rng, &['，', '。', ' ']));
            }
            "emoji" => {
                out.push_str(pick(&mut rng, EMOJI));
                if below(&mut rng, 2) == 0 {
                    out.push_str(pick(&mut rng, WORDS));
                }
                out.push(' ');
            }
            _ => {
                // Random scalars, each UTF-8 length about equally often.
                let ranges = [
                    (0u32, 0x7F),
                    (0x80, 0x7FF),
                    (0x800, 0xFFFF),
                    (0x10000, 0x10FFFF),
                ];
                let (lo, hi) = pick(&mut rng, &ranges);
                if let Some(c) = char::from_u32(lo + below(&mut rng, (hi - lo + 1) as usize) as u32)
                {
                    out.push(c);
                }
            }
        }
    }
    fit(out.as_bytes(), len)
}

/// The first `len` bytes of `text` repeated, cut back to a character
/// boundary and padded with spaces.
pub fn fit(text: &[u8], len: usize) -> Vec<u8> {
    let mut out: Vec<u8> = text.iter().copied().cycle().take(len).collect();
    let mut cut = out.len();
    while core::str::from_utf8(&out[..cut]).is_err() {
        cut -= 1;
    }
    out.truncate(cut);
    out.resize(len, b' ');
    assert!(core::str::from_utf8(&out).is_ok());
    out
}

/// The same bytes with 1% of them (at least one) replaced by bytes that
/// can never occur in UTF-8; `salt` chooses which (each input of a row
/// has its own).
pub fn corrupt(valid: &[u8], salt: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(0xBAD_BAD + valid.len() as u64 + (salt << 32));
    let mut out = valid.to_vec();
    for _ in 0..(valid.len() / 100).max(1) {
        let at = below(&mut rng, out.len());
        out[at] = pick(&mut rng, &[0xFF, 0xC0, 0xF8]);
    }
    out
}

/// How much distinct text a 64-byte or 4 KiB row decodes, a slice of it
/// per call in turn: more than a branch predictor learns, so that every
/// call decodes text the CPU has not just seen, as calls in a program do.
///
/// A decoder's branches on what the bytes are (which step a block takes,
/// where an ASCII run ends) are learned when the same input comes back call
/// after call: a row that decodes one input over and over measures a
/// trained predictor, and several contenders ran two to four times slower
/// on text they had not just seen (the commit that made this pool has the
/// numbers). A 1 MiB row is one call on 1 MiB already.
pub const POOL: usize = 1 << 20;

/// One row: `variants`, each `size` bytes of the class, decoded one per
/// call in turn (one for a 1 MiB row; `POOL / size` for a smaller one).
pub struct Input {
    pub class: String,
    pub size: usize,
    pub variants: Vec<Vec<u8>>,
}

/// `POOL / size` inputs of `size` bytes, spread evenly over `long` (the
/// class's 1 MiB text), each from a character boundary, cut back to one
/// and padded with spaces as [`fit`] does.
pub fn slices(long: &[u8], size: usize) -> Vec<Vec<u8>> {
    let count = POOL / size;
    let step = (long.len() - size) / count;
    (0..count)
        .map(|k| {
            let mut at = k * step;
            while long[at] & 0xC0 == 0x80 {
                at += 1;
            }
            fit(&long[at..long.len().min(at + size)], size)
        })
        .collect()
}

pub fn inputs() -> Vec<Input> {
    let mut classes: Vec<(String, Vec<u8>)> = ["ascii", "latin", "cjk", "emoji", "mixed"]
        .iter()
        .map(|c| (c.to_string(), Vec::new()))
        .collect();
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds");
    let mut files: Vec<_> = std::fs::read_dir(&seeds)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "txt"));
    files.sort();
    if files.is_empty() {
        eprintln!("note: no seed texts in {}", seeds.display());
    }
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy();
        let id = name.split('_').next().unwrap_or(&name).to_string();
        classes.push((
            format!("seed{id}"),
            std::fs::read(&path).expect("seed text"),
        ));
    }
    let mut out = Vec::new();
    for (class, text) in classes {
        let long = if text.is_empty() {
            generate(&class, LONG)
        } else {
            fit(&text, LONG)
        };
        for size in SIZES {
            let variants = if size == LONG {
                vec![long.clone()]
            } else {
                slices(&long, size)
            };
            out.push(Input {
                class: class.clone(),
                size,
                variants,
            });
        }
    }
    out
}

/// The largest size, a row of one input.
const LONG: usize = 1 << 20;

pub const SIZES: [usize; 3] = [64, 4096, LONG];

pub fn size_name(size: usize) -> String {
    match size {
        s if s >= 1 << 20 => format!("{}MiB", s >> 20),
        s if s >= 1 << 10 => format!("{}KiB", s >> 10),
        s => format!("{s}B"),
    }
}
